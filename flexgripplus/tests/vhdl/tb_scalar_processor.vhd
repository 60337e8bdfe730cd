-- flexpmu's testbench of FlexGripPlus 4.4's scalar_processor
-- (RTL/SMP/Pipeline/Execution/ScalarProcessor/scalar_processor.vhd), for the
-- test execution_units.rs, which holds flexpmu's port of it
-- (flexpmu_sim::gpu::fgp_iss::alu) to it vector by vector.
-- Reads one vector per line from VEC_FILE, applies it to the combinational
-- unit, waits 1 ns and writes every output bit to OUT_FILE (std_logic
-- characters, so 'X'/'U' show).
-- Vector line (hex, space separated):
--   op subop marker src1 src2 src3 negs carry sat w32 signed abssat cvtneg cvttype setcond
-- op: alu_opcode_type'pos (2 hex digits); marker: instr_marker_type'pos;
-- negs: bit0 src1_neg, bit1 src2_neg, bit2 src3_neg.
-- Output line: result(32 chars) carry overflow sign zero
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.gpgpu_package.all;

entity tb_scalar_processor is
  generic(VEC_FILE : string := "vectors.txt"; OUT_FILE : string := "ghdl_out.txt");
end tb_scalar_processor;

architecture tb of tb_scalar_processor is
  signal alu_opcode      : alu_opcode_type := UNKNOWN;
  signal instr_subop     : std_logic_vector(2 downto 0) := "000";
  signal instr_marker    : instr_marker_type := FULL_NORM;
  signal src1, src2, src3 : std_logic_vector(31 downto 0) := (others => '0');
  signal src1_neg, src2_neg, src3_neg, carry_in, saturate, w32, is_signed, cvt_neg : std_logic := '0';
  signal abs_saturate    : std_logic_vector(1 downto 0) := "00";
  signal cvt_type        : std_logic_vector(2 downto 0) := "000";
  signal set_cond        : std_logic_vector(2 downto 0) := "000";
  signal carry_o, overflow_o, sign_o, zero_o : std_logic;
  signal result_o        : std_logic_vector(31 downto 0);
begin
  dut : entity work.scalar_processor
    port map(
      alu_opcode_in => alu_opcode, instr_subop_in => instr_subop, instr_marker_in => instr_marker,
      src1_in => src1, src2_in => src2, src3_in => src3,
      src1_neg_in => src1_neg, src2_neg_in => src2_neg, src3_neg_in => src3_neg,
      carry_in => carry_in, saturate_in => saturate, w32_in => w32, is_signed_in => is_signed,
      abs_saturate_in => abs_saturate, cvt_neg_in => cvt_neg, cvt_type_in => cvt_type,
      set_cond_in => set_cond,
      carry_out => carry_o, overflow_out => overflow_o, sign_out => sign_o, zero_out => zero_o,
      result_out => result_o);

  stim : process
    file fin  : text open read_mode is VEC_FILE;
    file fout : text open write_mode is OUT_FILE;
    variable li, lo : line;
    variable v8 : std_logic_vector(7 downto 0);
    variable v4 : std_logic_vector(3 downto 0);
    variable v32 : std_logic_vector(31 downto 0);
  begin
    while not endfile(fin) loop
      readline(fin, li);
      if li'length = 0 then
        next;
      end if;
      hread(li, v8); alu_opcode <= alu_opcode_type'val(to_integer(unsigned(v8)));
      hread(li, v4); instr_subop <= v4(2 downto 0);
      hread(li, v4); instr_marker <= instr_marker_type'val(to_integer(unsigned(v4)));
      hread(li, v32); src1 <= v32;
      hread(li, v32); src2 <= v32;
      hread(li, v32); src3 <= v32;
      hread(li, v4); src1_neg <= v4(0); src2_neg <= v4(1); src3_neg <= v4(2);
      hread(li, v4); carry_in <= v4(0);
      hread(li, v4); saturate <= v4(0);
      hread(li, v4); w32 <= v4(0);
      hread(li, v4); is_signed <= v4(0);
      hread(li, v4); abs_saturate <= v4(1 downto 0);
      hread(li, v4); cvt_neg <= v4(0);
      hread(li, v4); cvt_type <= v4(2 downto 0);
      hread(li, v4); set_cond <= v4(2 downto 0);
      wait for 1 ns;
      write(lo, to_string(result_o));
      write(lo, string'(" "));
      write(lo, to_string(carry_o) & to_string(overflow_o) & to_string(sign_o) & to_string(zero_o));
      writeline(fout, lo);
    end loop;
    wait;
  end process;
end tb;
