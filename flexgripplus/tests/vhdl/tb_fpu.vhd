-- flexpmu's testbench of FlexGripPlus 4.4's fpu_single
-- (RTL/SMP/Pipeline/Execution/FPU/fpu_top_32_new.vhd), for the test
-- execution_units.rs, which holds flexpmu's port of it
-- (flexpmu_sim::gpu::fgp_iss::fpu) to it vector by vector.
-- Reads vectors from the file given by the generic VEC, one per line:
--   op sub rmode s32 abs setcond n1 n2 n3 src1 src2 src3
-- (op: 0 FADD, 1 FMUL, 2 FMAD, 3 CONV, 4 FSET; small fields decimal,
--  src words 8 hex digits), drives them the way pipeline_execute.vhd does
-- (enable high until finished has been seen, result taken one edge later,
-- then enable low for GAP cycles) and writes per line:
--   out_fp underflow overflow inexact exception invalid
-- (out_fp 8 hex digits, flags 0/1).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
library work;
use work.gpgpu_package.all;

entity tb_fpu is
  generic (VEC : string := "vectors.txt"; OUTF : string := "ghdl_out.txt"; GAP : integer := 2);
end tb_fpu;

architecture sim of tb_fpu is
  signal clk, rst, enable : std_logic := '0';
  signal rmode            : std_logic_vector(1 downto 0) := "00";
  signal S32, abs_en      : std_logic := '0';
  signal set_cond         : std_logic_vector(2 downto 0) := "000";
  signal op               : fpu_opcode_type := UNKNOWN;
  signal subop            : std_logic_vector(2 downto 0) := "000";
  signal src1, src2, src3 : std_logic_vector(31 downto 0) := (others => '0');
  signal n1, n2, n3       : std_logic := '0';
  signal out_fp           : std_logic_vector(31 downto 0);
  signal finished         : std_logic;
  signal uf, ovf, inx, exc, inv : std_logic;
  signal done             : boolean := false;
begin
  dut : fpu_single port map(
    clk => clk, rst => rst, enable => enable, rmode => rmode, S32 => S32, abs_en => abs_en,
    set_cond_in => set_cond, fpu_opcode_in => op, fpu_subopcode_in => subop,
    src1_in => src1, src2_in => src2, src3_in => src3,
    src1_neg_in => n1, src2_neg_in => n2, src3_neg_in => n3,
    out_fp => out_fp, stall_in => '0', finished => finished,
    underflow => uf, overflow => ovf, inexact => inx, exception => exc, invalid => inv);

  clk <= not clk after 5 ns when not done else '0';

  p_stim : process
    file fin  : text open read_mode is VEC;
    file fout : text open write_mode is OUTF;
    variable li, lo : line;
    variable iop, isub, irm, is32, iabs, isc, in1, in2, in3 : integer;
    variable w1, w2, w3 : std_logic_vector(31 downto 0);
    function b(i : integer) return std_logic is
    begin
      if i /= 0 then return '1'; else return '0'; end if;
    end function;
    function fl(s : std_logic) return character is
    begin
      if s = '1' then return '1'; elsif s = '0' then return '0'; else return 'X'; end if;
    end function;
  begin
    rst <= '1';
    wait until rising_edge(clk);
    wait until rising_edge(clk);
    rst <= '0';
    wait until rising_edge(clk);
    while not endfile(fin) loop
      readline(fin, li);
      next when li'length = 0;
      read(li, iop); read(li, isub); read(li, irm); read(li, is32); read(li, iabs);
      read(li, isc); read(li, in1); read(li, in2); read(li, in3);
      hread(li, w1); hread(li, w2); hread(li, w3);
      case iop is
        when 0 => op <= FADD;
        when 1 => op <= FMUL;
        when 2 => op <= FMAD;
        when 3 => op <= CONV;
        when 4 => op <= FSET;
        when others => op <= UNKNOWN;
      end case;
      subop    <= std_logic_vector(to_unsigned(isub, 3));
      rmode    <= std_logic_vector(to_unsigned(irm, 2));
      S32      <= b(is32);
      abs_en   <= b(iabs);
      set_cond <= std_logic_vector(to_unsigned(isc, 3));
      n1 <= b(in1); n2 <= b(in2); n3 <= b(in3);
      src1 <= w1; src2 <= w2; src3 <= w3;
      enable <= '1';
      -- pipeline_execute ALU_EXEC: leave when finished is sampled high
      loop
        wait until rising_edge(clk);
        exit when finished = '1';
      end loop;
      -- ALU_DONE: fp_result_o sampled at this edge, fpu_en cleared
      wait until rising_edge(clk);
      hwrite(lo, out_fp);
      write(lo, ' '); write(lo, fl(uf)); write(lo, ' '); write(lo, fl(ovf));
      write(lo, ' '); write(lo, fl(inx)); write(lo, ' '); write(lo, fl(exc));
      write(lo, ' '); write(lo, fl(inv));
      writeline(fout, lo);
      enable <= '0';
      for i in 1 to GAP loop
        wait until rising_edge(clk);
      end loop;
    end loop;
    done <= true;
    wait;
  end process;
end sim;
