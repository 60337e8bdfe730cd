library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.gpgpu_package.all;
use work.flexpmu_fgp.all;

-- The kit's decode hook for a PMU with 4 inputs per channel
-- (flexpmu_fgp_decode_hook_sel4) driving that PMU's wrapper
-- (flexpmu_fgp_pmu_sel4): each PMEVENT's selector reaches the PMU with its
-- command, the counter counts the input it selects (input s of counter k is
-- monitor_in(s * 16 + k)), a switch of input counts nothing by itself, and a
-- PMEVENT selecting an input the PMU lacks (SEL7) is not executed. Fetch sends
-- each warp instruction four times (warp_lane_id 0 to 3); execute hands each
-- pass on one cycle after read gets it. Success ends with
-- "tb_flexpmu_fgp_selectors: PASSED".
entity tb_flexpmu_fgp_selectors is
end entity tb_flexpmu_fgp_selectors;

architecture behaviour of tb_flexpmu_fgp_selectors is
  constant PERIOD    : time    := 10 ns;
  constant COUNTERS  : integer := 16;
  constant SELECTORS : integer := 4;

  signal clk_in : std_logic := '0';
  signal reset  : std_logic := '1';
  signal done   : boolean   := false;

  signal pipeline_fetch_done   : std_logic := '0';
  signal instruction_in        : std_logic_vector(63 downto 0) := (others => '0');
  signal warp_lane_id_in       : std_logic_vector(1 downto 0) := "00";
  signal pipeline_stall_out    : std_logic;
  signal pipeline_execute_done : std_logic := '0';
  signal pmu_address           : std_logic_vector(3 downto 0);
  signal pmu_command           : std_logic_vector(1 downto 0);
  signal pmu_reset             : std_logic;
  signal pmu_selector          : std_logic_vector(2 downto 0);
  signal monitor_in  : flexpmu_monitor_array(0 to SELECTORS * COUNTERS - 1) := (others => (others => '0'));
  signal monitor_out : std_logic_vector(31 downto 0);
begin
  clk_in <= not clk_in after PERIOD / 2 when not done;

  decode_hook : entity work.flexpmu_fgp_decode_hook_sel4
    port map (
      reset => reset, clk_in => clk_in,
      pipeline_fetch_done => pipeline_fetch_done,
      instruction_in => instruction_in,
      warp_lane_id_in => warp_lane_id_in,
      pipeline_stall_in => '0',
      pipeline_stall_out => pipeline_stall_out,
      pipeline_execute_done => pipeline_execute_done,
      instr_opcode_in => UNKNOWN, mov_opcode_in => UNKNOWN,
      src1_mem_type_in => UNKNOWN, src2_mem_type_in => UNKNOWN, src3_mem_type_in => UNKNOWN,
      src1_data_type_in => DT_NONE, src2_data_type_in => DT_NONE, src3_data_type_in => DT_NONE,
      dest_mem_type_in => UNKNOWN, dest_mem_opcode_in => WRITE,
      dest_data_type_in => DT_NONE, dest_in => (others => '0'),
      instr_opcode_out => open, mov_opcode_out => open,
      src1_mem_type_out => open, src2_mem_type_out => open, src3_mem_type_out => open,
      src1_data_type_out => open, src2_data_type_out => open, src3_data_type_out => open,
      dest_mem_type_out => open, dest_mem_opcode_out => open,
      dest_data_type_out => open, dest_out => open,
      pmu_address => pmu_address, pmu_command => pmu_command, pmu_reset => pmu_reset,
      pmu_selector => pmu_selector,
      pmu_interlock => open, pmu_read_exec => open
    );

  pmu : entity work.flexpmu_fgp_pmu_sel4
    port map (
      clk_in => clk_in, reset => pmu_reset,
      pmu_address => pmu_address, pmu_command => pmu_command,
      pmu_selector => pmu_selector,
      monitor_in => monitor_in, monitor_out => monitor_out
    );

  stimulus : process
    procedure fail(what : string) is
    begin
      report "tb_flexpmu_fgp_selectors: FAILED: " & what severity failure;
    end procedure;

    procedure tick(n : integer := 1) is
    begin
      for i in 1 to n loop
        wait until rising_edge(clk_in);
      end loop;
      wait for 1 ns;
    end procedure;

    -- One warp instruction, its four passes through decode. A command
    -- (`command` /= "00") is expected with the first pass only, at
    -- `counter`, carrying `selector`.
    procedure instruction(word : std_logic_vector(31 downto 0);
                          command : std_logic_vector(1 downto 0);
                          counter : integer; selector : integer) is
    begin
      for lane in 0 to 3 loop
        instruction_in <= x"00000000" & word;
        warp_lane_id_in <= std_logic_vector(to_unsigned(lane, 2));
        pipeline_fetch_done <= '1';
        tick;
        pipeline_fetch_done <= '0';
        tick;  -- the hand-over to read
        if lane = 0 and command /= "00" then
          if pmu_command /= command or to_integer(unsigned(pmu_address)) /= counter
             or to_integer(unsigned(pmu_selector)) /= selector then
            fail("word " & to_hstring(word) & ": command "
                 & integer'image(to_integer(unsigned(pmu_command))) & " at counter "
                 & integer'image(to_integer(unsigned(pmu_address))) & " with selector "
                 & integer'image(to_integer(unsigned(pmu_selector))));
          end if;
        elsif pmu_command /= "00" then
          fail("word " & to_hstring(word) & ", pass " & integer'image(lane)
               & ": command " & integer'image(to_integer(unsigned(pmu_command))));
        end if;
        pipeline_execute_done <= '1';
        tick;
        pipeline_execute_done <= '0';
      end loop;
    end procedure;

    -- `n` changes of input `index`, one every other cycle.
    procedure change(index : integer; n : integer) is
    begin
      for i in 1 to n loop
        monitor_in(index) <= std_logic_vector(unsigned(monitor_in(index)) + 1);
        tick(2);
      end loop;
    end procedure;

    procedure expect(counter : integer; count : integer) is
    begin
      tick(2);
      if to_integer(unsigned(pmu_address)) /= counter then
        fail("monitor_out shows counter " & integer'image(to_integer(unsigned(pmu_address))));
      end if;
      if to_integer(unsigned(monitor_out)) /= count then
        fail("counter " & integer'image(counter) & " is "
             & integer'image(to_integer(unsigned(monitor_out))) & ", expected "
             & integer'image(count));
      end if;
    end procedure;
  begin
    reset <= '1';
    tick(3);
    reset <= '0';
    tick;
    instruction(x"70047000", "10", 3, 2);  -- PMEVENT CNT3, RST, SEL2
    instruction(x"70046800", "01", 3, 2);  -- PMEVENT CNT3, CNT, SEL2
    change(2 * COUNTERS + 3, 5);           -- counted
    change(3, 7);                          -- input 0: not selected
    change(COUNTERS + 3, 3);               -- input 1: not selected
    expect(3, 5);
    instruction(x"700e6800", "00", 0, 0);  -- PMEVENT CNT3, CNT, SEL7: no input 7
    change(2 * COUNTERS + 3, 2);           -- still input 2
    expect(3, 7);
    change(3, 1);                          -- input 0 (8) now differs from input 2 (7):
                                           -- the switch alone counts nothing
    instruction(x"70006800", "01", 3, 0);  -- PMEVENT CNT3, CNT, SEL0
    expect(3, 7);
    change(3, 4);
    change(2 * COUNTERS + 3, 6);
    expect(3, 11);
    instruction(x"7006a800", "01", 5, 3);  -- PMEVENT CNT5, CNT, SEL3
    change(3 * COUNTERS + 5, 3);
    change(5, 2);
    expect(5, 3);
    report "tb_flexpmu_fgp_selectors: PASSED";
    done <= true;
    wait;
  end process;
end architecture behaviour;
