-- flexpmu co-simulation: the probe inside FlexGripPlus' streaming_multiprocessor.
--
-- flexpmu instantiates this entity in its working copy of
-- SMP/streaming_multiprocessor.vhd (one instance, after the architecture's
-- other statements) and maps its ports to the architecture's own signals.
-- It only reads them: it writes one line per event to TRACE_FILE, which
-- flexpmu compares with its models. Times are in ns (the testbench's clock
-- period is 10 ns). Lines:
--   I <ns> <lane> <base> <reg> <en> <d7> .. <d0>   SM controller register writes (launch set-up)
--   W <ns> <warp> <lane> <base> <reg> <en> <d7> .. <d0>   write stage register writes
--   P <ns> <warp> <lane> <reg> <en> <f7> .. <f0>   write stage predicate (flag) writes
--   G <ns> <addr> <byte>                            global memory byte writes (either port)
--   R <ns>                                          the SM leaves reset (a round of blocks starts)
--   O <ns> <warp> <lane> <a7> <b7> <c7> .. <a0> <b0> <c0>  the operands read hands to execute
--   H <ns> <stage> <warp> <lane> <pc>               a stage hands a pass on: U warp unit to fetch,
--                                                   F fetch to decode, D decode to read, X read to
--                                                   execute, E execute to write, W write done
-- <en> has bit i set for core i; values are hexadecimal.

library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.gpgpu_package.all;

entity flexpmu_cosim_probe is
  generic (
    TRACE_FILE     : string  := "flexpmu_cosim_trace.txt";
    GMEM_ADDR_SIZE : integer := 18
  );
  port (
    clk_in                 : in std_logic;
    host_reset             : in std_logic;
    smp_configuration_en   : in std_logic;
    controller_base_addr   : in gprs_addr_array;
    controller_reg_num     : in gprs_reg_array;
    controller_lane_id     : in warp_lane_id_array;
    controller_wr_en       : in wr_en_array;
    controller_wr_data     : in vector_register;
    write_warp_id          : in std_logic_vector(4 downto 0);
    gprs_base_addr         : in gprs_addr_array;
    gprs_reg_num           : in gprs_reg_array;
    gprs_lane_id           : in warp_lane_id_array;
    gprs_wr_en             : in wr_en_array;
    gprs_wr_data           : in vector_register;
    pred_warp_id           : in warp_id_array;
    pred_lane_id           : in warp_lane_id_array;
    pred_reg_num           : in reg_num_array;
    pred_wr_en             : in wr_en_array;
    pred_wr_data           : in vector_flag_register;
    gmem_addr_a            : in std_logic_vector(GMEM_ADDR_SIZE - 1 downto 0);
    gmem_wr_en_a           : in std_logic;
    gmem_wr_data_a         : in std_logic_vector(7 downto 0);
    gmem_addr_b            : in std_logic_vector(GMEM_ADDR_SIZE - 1 downto 0);
    gmem_wr_en_b           : in std_logic;
    gmem_wr_data_b         : in std_logic_vector(7 downto 0);
    -- Each stage's hand-over strobe with the pass it hands on.
    issue_done             : in std_logic;
    issue_warp             : in std_logic_vector(4 downto 0);
    issue_lane             : in std_logic_vector(1 downto 0);
    issue_pc               : in std_logic_vector(31 downto 0);
    fetch_done             : in std_logic;
    fetch_warp             : in std_logic_vector(4 downto 0);
    fetch_lane             : in std_logic_vector(1 downto 0);
    decode_done            : in std_logic;
    decode_warp            : in std_logic_vector(4 downto 0);
    decode_lane            : in std_logic_vector(1 downto 0);
    read_done              : in std_logic;
    read_warp              : in std_logic_vector(4 downto 0);
    read_lane              : in std_logic_vector(1 downto 0);
    read_operands          : in temp_vector_register;
    execute_done           : in std_logic;
    execute_warp           : in std_logic_vector(4 downto 0);
    execute_lane           : in std_logic_vector(1 downto 0);
    write_done             : in std_logic;
    write_warp             : in std_logic_vector(4 downto 0);
    write_lane             : in std_logic_vector(1 downto 0)
  );
end entity flexpmu_cosim_probe;

architecture observe of flexpmu_cosim_probe is
  file trace : text open write_mode is TRACE_FILE;

  function any(en : wr_en_array) return boolean is
  begin
    for i in en'range loop
      if en(i) = '1' then
        return true;
      end if;
    end loop;
    return false;
  end function;

  procedure handover(file f : text; stage : character; warp : std_logic_vector;
                     lane : std_logic_vector; pc : std_logic_vector) is
    variable l : line;
  begin
    write(l, string'("H ") & integer'image(now / 1 ns) & " " & stage & " " & to_hstring(warp) & " "
             & to_hstring(lane) & " " & to_hstring(pc));
    writeline(f, l);
  end procedure;

  function mask(en : wr_en_array) return std_logic_vector is
    variable m : std_logic_vector(7 downto 0) := (others => '0');
  begin
    for i in en'range loop
      m(i) := en(i);
    end loop;
    return m;
  end function;
begin
  process (clk_in)
    variable l          : line;
    variable in_reset   : boolean := true;
  begin
    if rising_edge(clk_in) then
      if host_reset = '1' then
        in_reset := true;
      else
        if in_reset then
          write(l, string'("R ") & integer'image(now / 1 ns));
          writeline(trace, l);
          in_reset := false;
        end if;
        if smp_configuration_en = '1' and any(controller_wr_en) then
          write(l, string'("I ") & integer'image(now / 1 ns) & " "
                   & to_hstring(controller_lane_id(0)) & " " & to_hstring(controller_base_addr(0)) & " "
                   & to_hstring(controller_reg_num(0)) & " " & to_hstring(mask(controller_wr_en)));
          for i in controller_wr_data'range loop
            write(l, " " & to_hstring(controller_wr_data(i)));
          end loop;
          writeline(trace, l);
        end if;
        if any(gprs_wr_en) then
          write(l, string'("W ") & integer'image(now / 1 ns) & " " & to_hstring(write_warp_id) & " "
                   & to_hstring(gprs_lane_id(0)) & " " & to_hstring(gprs_base_addr(0)) & " "
                   & to_hstring(gprs_reg_num(0)) & " " & to_hstring(mask(gprs_wr_en)));
          for i in gprs_wr_data'range loop
            write(l, " " & to_hstring(gprs_wr_data(i)));
          end loop;
          writeline(trace, l);
        end if;
        if any(pred_wr_en) then
          write(l, string'("P ") & integer'image(now / 1 ns) & " " & to_hstring(pred_warp_id(0)) & " "
                   & to_hstring(pred_lane_id(0)) & " " & to_hstring(pred_reg_num(0)) & " "
                   & to_hstring(mask(pred_wr_en)));
          for i in pred_wr_data'range loop
            write(l, " " & to_hstring(pred_wr_data(i)));
          end loop;
          writeline(trace, l);
        end if;
        if gmem_wr_en_a = '1' then
          write(l, string'("G ") & integer'image(now / 1 ns) & " " & to_hstring(gmem_addr_a) & " "
                   & to_hstring(gmem_wr_data_a));
          writeline(trace, l);
        end if;
        if issue_done = '1' then
          handover(trace, 'U', issue_warp, issue_lane, issue_pc);
        end if;
        if fetch_done = '1' then
          handover(trace, 'F', fetch_warp, fetch_lane, x"0");
        end if;
        if decode_done = '1' then
          handover(trace, 'D', decode_warp, decode_lane, x"0");
        end if;
        if read_done = '1' then
          handover(trace, 'X', read_warp, read_lane, x"0");
          write(l, string'("O ") & integer'image(now / 1 ns) & " " & to_hstring(read_warp) & " "
                   & to_hstring(read_lane));
          for i in read_operands'range loop
            write(l, " " & to_hstring(read_operands(i)(TEMP_REG_SRC1)(0)) & " "
                     & to_hstring(read_operands(i)(TEMP_REG_SRC2)(0)) & " "
                     & to_hstring(read_operands(i)(TEMP_REG_SRC3)(0)));
          end loop;
          writeline(trace, l);
        end if;
        if execute_done = '1' then
          handover(trace, 'E', execute_warp, execute_lane, x"0");
        end if;
        if write_done = '1' then
          handover(trace, 'W', write_warp, write_lane, x"0");
        end if;
        if gmem_wr_en_b = '1' then
          write(l, string'("G ") & integer'image(now / 1 ns) & " " & to_hstring(gmem_addr_b) & " "
                   & to_hstring(gmem_wr_data_b));
          writeline(trace, l);
        end if;
      end if;
    end if;
  end process;
end architecture observe;
