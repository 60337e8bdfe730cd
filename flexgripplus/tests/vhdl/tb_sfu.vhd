-- flexpmu's testbench of FlexGripPlus 4.4's sfu_proc and rro_proc
-- (RTL/SMP/Pipeline/Execution/SFU/sfu_proc.vhd, RRO/rro_proc.vhd), for the
-- test execution_units.rs, which holds flexpmu's port of them
-- (flexpmu_sim::gpu::fgp_iss::sfu) to them vector by vector.
-- Input file (generic IN_FILE): one vector per line, "<op> <hex32>", op in
--   0..7  : sfu_proc with selop_i = op (000 sin .. 101 rcp, 110 sqrt, 111 bypass)
--   8     : rro_proc with selec_phase = '0' (RRO for SIN/COS)
--   9     : rro_proc with selec_phase = '1' (RRO for EX2)
--   10/11 : rro_proc phase 0, then sfu_proc selop 000 / 001 on its result
--   12    : rro_proc phase 1, then sfu_proc selop 100 on its result
-- Consecutive lines with the same op are batched CORES at a time (one word per
-- lane); a change of op closes the batch early.  Each lane gets its own word.  Output file
-- (OUT_FILE): one hex32 result per input line, same order.
-- The units are driven as pipeline_execute.vhd does: a one-cycle start pulse,
-- then results are taken at the first rising edge where stall_o = '0'.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.gpgpu_package.all;

entity tb_sfu is
  generic (IN_FILE : string := "vectors.txt"; OUT_FILE : string := "ghdl_out.txt");
end entity;

architecture sim of tb_sfu is
  signal clk        : std_logic := '0';
  signal rst_n      : std_logic := '0';
  signal sfu_start  : std_logic := '0';
  signal rro_start  : std_logic := '0';
  signal sfu_src    : vector_register := (others => (others => '0'));
  signal rro_src    : vector_register := (others => (others => '0'));
  signal sfu_selop  : std_logic_vector(2 downto 0) := "111";
  signal rro_phase  : std_logic := '0';
  signal sfu_res    : vector_register;
  signal rro_res    : vector_register;
  signal sfu_stall  : std_logic;
  signal rro_stall  : std_logic;
  signal done       : boolean := false;
begin
  clk <= not clk after 5 ns when not done else '0';

  uSfu : sfu_proc port map(clk_i => clk, rst_n => rst_n, start_i => sfu_start,
    src1_i => sfu_src, selop_i => sfu_selop, Result_o => sfu_res, stall_o => sfu_stall);
  uRro : rro_proc port map(clk_i => clk, rst_n => rst_n, start_i => rro_start,
    selec_phase => rro_phase, src1_i => rro_src, stall_o => rro_stall, Result => rro_res);

  stim : process
    file fin  : text;
    file fout : text;
    variable lin, lout : line;
    variable op, op0 : integer;
    variable w : std_logic_vector(31 downto 0);
    variable batch : vector_register;
    variable n : integer;
    variable res : vector_register;
    variable have_pend : boolean;
    variable pend_op : integer;
    variable pend_w : std_logic_vector(31 downto 0);

    procedure run_rro(phase : std_logic; v : vector_register; r : out vector_register) is
    begin
      wait until falling_edge(clk);
      rro_src <= v; rro_phase <= phase; rro_start <= '1';
      wait until falling_edge(clk);
      rro_start <= '0';
      loop
        wait until rising_edge(clk);
        exit when rro_stall = '0';
      end loop;
      r := rro_res;
    end procedure;

    procedure run_sfu(sel : std_logic_vector(2 downto 0); v : vector_register; r : out vector_register) is
    begin
      wait until falling_edge(clk);
      sfu_src <= v; sfu_selop <= sel; sfu_start <= '1';
      wait until falling_edge(clk);
      sfu_start <= '0';
      loop
        wait until rising_edge(clk);
        exit when sfu_stall = '0';
      end loop;
      r := sfu_res;
    end procedure;
  begin
    file_open(fin, IN_FILE, read_mode);
    file_open(fout, OUT_FILE, write_mode);
    rst_n <= '0';
    wait until rising_edge(clk);
    wait until rising_edge(clk);
    wait until falling_edge(clk);
    rst_n <= '1';
    have_pend := false;
    while have_pend or not endfile(fin) loop
      n := 0; op0 := -1;
      batch := (others => (others => '0'));
      loop
        if have_pend then
          op := pend_op; w := pend_w; have_pend := false;
        elsif not endfile(fin) then
          readline(fin, lin);
          read(lin, op);
          hread(lin, w);
        else
          exit;
        end if;
        if op0 = -1 then op0 := op; end if;
        if op /= op0 then
          have_pend := true; pend_op := op; pend_w := w;
          exit;
        end if;
        batch(n) := w;
        n := n + 1;
        exit when n = CORES;
      end loop;
      if op0 <= 7 then
        run_sfu(std_logic_vector(to_unsigned(op0, 3)), batch, res);
      elsif op0 = 8 then
        run_rro('0', batch, res);
      elsif op0 = 9 then
        run_rro('1', batch, res);
      elsif op0 = 10 then
        run_rro('0', batch, res); run_sfu("000", res, res);
      elsif op0 = 11 then
        run_rro('0', batch, res); run_sfu("001", res, res);
      else
        run_rro('1', batch, res); run_sfu("100", res, res);
      end if;
      for i in 0 to n - 1 loop
        hwrite(lout, res(i));
        writeline(fout, lout);
      end loop;
    end loop;
    file_close(fout);
    done <= true;
    wait;
  end process;
end architecture;
