library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use ieee.math_real.all;
use work.gpgpu_package.all;
use work.flexpmu_fgp.all;

-- Drives the kit the way FlexGripPlus' pipeline drives it: fetch sends each
-- warp instruction four times (warp_lane_id 0 to 3); decode runs
-- FlexGripPlus' two-state handshake (IDLE, STALL) with its stall input from
-- the hook; read, execute and write each hold one pass and stall at random.
-- Everything the kit should do is worked out here independently of it: the
-- PMU commands (one per warp instruction, in the hand-over's next cycle),
-- the fields read gets (a register move for every pass of an IDL, decode's
-- own otherwise), the interlock, a reference count of every counter, and
-- the word each lane writes. An asynchronous reset in the middle of an IDL
-- must clear the hook at once. Any difference stops the run with the cycle
-- and what differed; success ends with "tb_flexpmu_fgp_kit: PASSED".
entity tb_flexpmu_fgp_kit is
end entity tb_flexpmu_fgp_kit;

architecture behaviour of tb_flexpmu_fgp_kit is
  constant PERIOD   : time    := 10 ns;
  constant COUNTERS : integer := 16;
  constant PASSES   : integer := 4;
  constant ROUNDS   : integer := 30;  -- times the program runs after the reset
  -- The round in which the reset comes (during its first IDL in write).
  constant RESET_ROUND : integer := 5;
  -- The PMU's channels (flexpmu's SM slice): the bits each counts, and
  -- whether as a level (a count per cycle any of them is high) or as a
  -- toggle (a count per cycle they differ from the last).
  type natural_array is array (0 to COUNTERS - 1) of natural;
  type boolean_array is array (0 to COUNTERS - 1) of boolean;
  constant CHANNEL_BITS  : natural_array := ({channel_bits});
  constant CHANNEL_LEVEL : boolean_array := ({channel_levels});

  type word_array is array (natural range <>) of std_logic_vector(31 downto 0);
  -- The warp instructions, in program order (32-bit words).
  constant PROGRAM : word_array := (
    x"70007000",  -- PMEVENT CNT3, RST
    x"70006800",  -- PMEVENT CNT3, CNT
    x"20008204",  -- an ALU instruction (R1)
    x"70007814",  -- PMEVENT CNT3, R5, IDL
    x"70006800",  -- PMEVENT CNT3, CNT: waits behind the IDL
    x"70002800",  -- PMEVENT CNT1, CNT (a level channel)
    x"30000003",  -- a 64-bit ALU word's low half (R0)
    x"70003824",  -- PMEVENT CNT1, R9, IDL
    x"700079fc",  -- PMEVENT CNT3, R127, IDL: straight behind another IDL
    x"70006000",  -- PMEVENT CNT3, NOP
    x"70000002",  -- opcode 0111 with bit 1 set: flow control, not a PMEVENT
    x"1000420c"   -- an ALU instruction (R3)
  );

  -- The fields of decode's output that the decode hook may replace.
  type fields_t is record
    instr_opcode    : instr_opcode_type;
    mov_opcode      : mov_opcode_type;
    src1_mem_type   : mem_type;
    src2_mem_type   : mem_type;
    src3_mem_type   : mem_type;
    src1_data_type  : data_type;
    src2_data_type  : data_type;
    src3_data_type  : data_type;
    dest_mem_type   : mem_type;
    dest_mem_opcode : mem_opcode_type;
    dest_data_type  : data_type;
    dest            : std_logic_vector(31 downto 0);
  end record;

  -- A pass as it travels through read, execute and write.
  type pass_t is record
    word   : std_logic_vector(31 downto 0);
    lane   : integer range 0 to PASSES - 1;
    is_idl : boolean;
    fields : fields_t;
    result : word_array(0 to CORES - 1);  -- what each lane writes, unless an IDL
  end record;

  function is_pmevent(w : std_logic_vector(31 downto 0)) return boolean is
  begin
    return w(31 downto 28) = "0111" and w(1) = '0';
  end function;

  function command_of(w : std_logic_vector(31 downto 0)) return std_logic_vector is
  begin
    return w(12 downto 11);
  end function;

  function is_idl(w : std_logic_vector(31 downto 0)) return boolean is
  begin
    return is_pmevent(w) and command_of(w) = "11";
  end function;

  -- What FlexGripPlus' decode makes of a word, in the kit's terms: the
  -- stock decoder knows no PMEVENT (UNKNOWN: its operand read, nothing
  -- written); ALU words read two registers and write one (bits 7-2).
  function stock_decode(w : std_logic_vector(31 downto 0)) return fields_t is
    variable f : fields_t;
  begin
    f := (instr_opcode => ALU, mov_opcode => UNKNOWN,
          src1_mem_type => REG, src2_mem_type => REG, src3_mem_type => UNKNOWN,
          src1_data_type => DT_U32, src2_data_type => DT_U32, src3_data_type => DT_NONE,
          dest_mem_type => REG, dest_mem_opcode => WRITE, dest_data_type => DT_U32,
          dest => (31 downto 6 => '0') & w(7 downto 2));
    if is_pmevent(w) then
      f.instr_opcode   := UNKNOWN;
      f.src2_mem_type  := UNKNOWN;
      f.src2_data_type := DT_NONE;
      f.dest_data_type := DT_NONE;
    elsif w(31 downto 28) = "0111" then
      f.instr_opcode   := FLOW;
      f.src1_mem_type  := UNKNOWN;
      f.src2_mem_type  := UNKNOWN;
      f.src1_data_type := DT_NONE;
      f.src2_data_type := DT_NONE;
      f.dest_mem_type  := UNKNOWN;
      f.dest_data_type := DT_NONE;
    end if;
    return f;
  end function;

  -- What read must get for every pass of an IDL: a 32-bit register move
  -- into the PMEVENT's register, no source operand.
  function idl_fields(w : std_logic_vector(31 downto 0)) return fields_t is
  begin
    return (instr_opcode => MOV, mov_opcode => MOV,
            src1_mem_type => UNKNOWN, src2_mem_type => UNKNOWN, src3_mem_type => UNKNOWN,
            src1_data_type => DT_NONE, src2_data_type => DT_NONE, src3_data_type => DT_NONE,
            dest_mem_type => REG, dest_mem_opcode => WRITE, dest_data_type => DT_U32,
            dest => (31 downto 7 => '0') & w(8 downto 2));
  end function;

  signal clk_in : std_logic := '0';
  signal reset  : std_logic := '1';
  signal done   : boolean   := false;

  -- Fetch to decode.
  signal pipeline_fd_done : std_logic := '0';
  signal instruction_fd   : std_logic_vector(63 downto 0) := (others => '0');
  signal warp_lane_id_fd  : std_logic_vector(1 downto 0) := "00";
  -- Decode (this testbench's) and its outputs before the hook.
  signal decode_stalled        : boolean := false;
  signal pipeline_decode_stall_in : std_logic;
  signal pipeline_dec_done     : std_logic := '0';
  signal raw                   : fields_t := stock_decode(x"00000000");
  signal decoded               : fields_t;  -- after the hook, to read
  signal dec_pass              : pass_t;
  -- Read, execute, write.
  signal pipeline_read_stall    : std_logic := '0';
  signal pipeline_read_done     : std_logic := '0';
  signal pipeline_execute_stall : std_logic := '0';
  signal pipeline_execute_done  : std_logic := '0';
  signal pipeline_write_stall   : std_logic := '0';
  signal temp_vector_register_re   : temp_vector_register;
  signal temp_vector_register_exec : temp_vector_register;
  signal temp_vector_register_ew   : temp_vector_register;
  -- The kit's PMU side.
  signal pmu_address     : std_logic_vector(3 downto 0);
  signal pmu_command     : std_logic_vector(1 downto 0);
  signal pmu_reset       : std_logic;
  signal pmu_read_exec   : std_logic;
  signal pmu_interlock   : std_logic;
  signal pmu_monitor_out : std_logic_vector(31 downto 0);
  signal monitor_in      : flexpmu_monitor_array(0 to COUNTERS - 1) := (others => (others => '0'));
  -- Set when the reset is to come: the process below times it.
  signal reset_request : boolean := false;
begin
  clk_in <= not clk_in after PERIOD / 2 when not done;

  decode_hook : entity work.flexpmu_fgp_decode_hook
    port map (
      reset => reset, clk_in => clk_in,
      pipeline_fetch_done => pipeline_fd_done,
      instruction_in => instruction_fd,
      warp_lane_id_in => warp_lane_id_fd,
      pipeline_stall_in => pipeline_read_stall,
      pipeline_stall_out => pipeline_decode_stall_in,
      pipeline_execute_done => pipeline_execute_done,
      instr_opcode_in => raw.instr_opcode, mov_opcode_in => raw.mov_opcode,
      src1_mem_type_in => raw.src1_mem_type, src2_mem_type_in => raw.src2_mem_type,
      src3_mem_type_in => raw.src3_mem_type,
      src1_data_type_in => raw.src1_data_type, src2_data_type_in => raw.src2_data_type,
      src3_data_type_in => raw.src3_data_type,
      dest_mem_type_in => raw.dest_mem_type, dest_mem_opcode_in => raw.dest_mem_opcode,
      dest_data_type_in => raw.dest_data_type, dest_in => raw.dest,
      instr_opcode_out => decoded.instr_opcode, mov_opcode_out => decoded.mov_opcode,
      src1_mem_type_out => decoded.src1_mem_type, src2_mem_type_out => decoded.src2_mem_type,
      src3_mem_type_out => decoded.src3_mem_type,
      src1_data_type_out => decoded.src1_data_type, src2_data_type_out => decoded.src2_data_type,
      src3_data_type_out => decoded.src3_data_type,
      dest_mem_type_out => decoded.dest_mem_type, dest_mem_opcode_out => decoded.dest_mem_opcode,
      dest_data_type_out => decoded.dest_data_type, dest_out => decoded.dest,
      pmu_address => pmu_address, pmu_command => pmu_command, pmu_reset => pmu_reset,
      pmu_interlock => pmu_interlock, pmu_read_exec => pmu_read_exec
    );

  execute_hook : entity work.flexpmu_fgp_execute_hook
    port map (
      pmu_read_exec => pmu_read_exec,
      monitor_value_in => pmu_monitor_out,
      temp_vector_register_in => temp_vector_register_exec,
      temp_vector_register_out => temp_vector_register_ew
    );

  pmu : entity work.flexpmu_fgp_pmu
    port map (
      clk_in => clk_in, reset => pmu_reset,
      pmu_address => pmu_address, pmu_command => pmu_command,
      monitor_in => monitor_in, monitor_out => pmu_monitor_out
    );

  -- The asynchronous reset: raised a quarter period after a rising edge
  -- (no clock edge in between), then the hook must already be clear.
  reset_driver : process
  begin
    reset <= '1';
    wait for 2 * PERIOD + PERIOD / 4;
    reset <= '0';
    wait until reset_request;
    wait until rising_edge(clk_in);
    wait for PERIOD / 4;
    -- An IDL is in flight: the hook holds its counter and replaces fields.
    assert pmu_address /= "0000" and decoded /= raw
      report "tb_flexpmu_fgp_kit: FAILED: no IDL in flight when the reset comes" severity failure;
    reset <= '1';
    wait for 1 ns;
    assert pmu_address = "0000" and pmu_command = "00" and pmu_interlock = '0'
      report "tb_flexpmu_fgp_kit: FAILED: the hook's registers did not clear on the asynchronous reset (address "
             & integer'image(to_integer(unsigned(pmu_address))) & ")" severity failure;
    assert decoded = raw
      report "tb_flexpmu_fgp_kit: FAILED: decode's fields still replaced after the asynchronous reset" severity failure;
    wait for 2 * PERIOD;
    reset <= '0';
    wait;
  end process;

  pipeline : process (clk_in, reset)
    variable seed1, seed2 : positive := 42;
    -- Fetch.
    variable round       : integer := 0;
    variable index       : integer := 0;
    variable lane        : integer := 0;
    variable fetch_gap   : integer := 0;
    variable after_reset : boolean := false;
    -- Read, execute, write: the pass each holds and its remaining cycles.
    variable read_pass, exec_pass : pass_t;
    variable read_busy, exec_busy, write_busy : integer := 0;
    variable read_full, exec_full : boolean := false;
    variable stale : word_array(0 to CORES - 1) := (others => x"dead0000");
    -- The expected PMU side.
    variable exp_address : std_logic_vector(3 downto 0) := "0000";
    variable exp_command : std_logic_vector(1 downto 0) := "00";
    variable idl_pending : boolean := false;
    variable interlock   : boolean;
    -- The reference PMU.
    type count_array is array (0 to COUNTERS - 1) of unsigned(31 downto 0);
    type state_t is (S_RESET, S_COUNTING, S_IDLE);
    type state_array is array (0 to COUNTERS - 1) of state_t;
    variable counts   : count_array := (others => (others => '0'));
    variable states   : state_array := (others => S_RESET);
    variable previous : word_array(0 to COUNTERS - 1) := (others => (others => '0'));
    variable command  : std_logic_vector(1 downto 0);
    variable expected : fields_t;
    -- Tallies for the final line.
    variable cycle, instructions, commands, idl_passes, interlock_cycles : integer := 0;
    variable r : real;

    impure function chance(p : real) return boolean is
    begin
      uniform(seed1, seed2, r);
      return r < p;
    end function;

    impure function cycles(low, high : integer) return integer is
    begin
      uniform(seed1, seed2, r);
      return low + integer(floor(r * real(high - low + 1)));
    end function;

    -- Channel i's input, its bits only.
    impure function masked(i : integer) return std_logic_vector is
      variable bits : std_logic_vector(31 downto 0) := (others => '0');
    begin
      bits(CHANNEL_BITS(i) - 1 downto 0) := monitor_in(i)(CHANNEL_BITS(i) - 1 downto 0);
      return bits;
    end function;

    -- Whether channel i counts in this cycle.
    impure function pulse(i : integer) return boolean is
    begin
      if CHANNEL_LEVEL(i) then
        return masked(i) /= x"00000000";
      end if;
      return masked(i) /= previous(i);
    end function;

    procedure fail(what : string) is
    begin
      report "tb_flexpmu_fgp_kit: FAILED at cycle " & integer'image(cycle) & ": " & what
        severity failure;
    end procedure;
  begin
    if reset = '1' then
      -- Every stage, like FlexGripPlus', resets asynchronously.
      pipeline_fd_done <= '0';
      decode_stalled <= false;
      pipeline_dec_done <= '0';
      pipeline_read_stall <= '0';
      pipeline_read_done <= '0';
      pipeline_execute_stall <= '0';
      pipeline_execute_done <= '0';
      pipeline_write_stall <= '0';
      read_full := false;
      exec_full := false;
      write_busy := 0;
      exp_address := "0000";
      exp_command := "00";
      idl_pending := false;
      -- The reference PMU resets too (the PMU at the clock edges the
      -- reset spans); its inputs hold still meanwhile.
      counts := (others => (others => '0'));
      states := (others => S_RESET);
      for i in 0 to COUNTERS - 1 loop
        previous(i) := masked(i);
      end loop;
      if round > 0 then
        -- The reset in the middle of the run: start again, and count
        -- from here.
        after_reset := true;
        round := 0;
        index := 0;
        lane := 0;
        instructions := 0;
        commands := 0;
        idl_passes := 0;
        interlock_cycles := 0;
      end if;
    elsif rising_edge(clk_in) then
      cycle := cycle + 1;
      if cycle > 100000 then
        fail("the run did not end (a stage waits for ever)");
      end if;

      -- Checks of the kit's outputs in the cycle before this edge.
      interlock := decode_stalled and is_pmevent(instruction_fd(31 downto 0))
                   and warp_lane_id_fd = "00" and idl_pending;
      if (pmu_interlock = '1') /= interlock then
        fail("pmu_interlock is " & std_logic'image(pmu_interlock));
      end if;
      if pipeline_decode_stall_in /= (pipeline_read_stall or pmu_interlock) then
        fail("decode's stall is not read's stall or the interlock");
      end if;
      if interlock then
        interlock_cycles := interlock_cycles + 1;
      end if;
      if pmu_command /= exp_command or pmu_address /= exp_address then
        fail("PMU command " & integer'image(to_integer(unsigned(pmu_command))) & " at counter "
             & integer'image(to_integer(unsigned(pmu_address))) & ", expected "
             & integer'image(to_integer(unsigned(exp_command))) & " at "
             & integer'image(to_integer(unsigned(exp_address))));
      end if;
      if exp_command /= "00" then
        commands := commands + 1;
      end if;
      if (pmu_read_exec = '1') /= (pipeline_execute_done = '1' and exec_pass.is_idl) then
        fail("pmu_read_exec is " & std_logic'image(pmu_read_exec));
      end if;

      -- Write: takes a pass from execute and checks every lane's word.
      if pipeline_execute_done = '1' then
        expected := stock_decode(exec_pass.word);
        if exec_pass.is_idl then
          expected := idl_fields(exec_pass.word);
        end if;
        if exec_pass.fields /= expected then
          fail("the pass reached write with other fields than it left decode with");
        end if;
        for i in 0 to CORES - 1 loop
          if exec_pass.is_idl then
            if unsigned(temp_vector_register_ew(i)(TEMP_REG_DEST)(0)) /= counts(to_integer(unsigned(exp_address))) then
              fail("lane " & integer'image(i) & " of pass " & integer'image(exec_pass.lane)
                   & " of an IDL writes " & integer'image(to_integer(unsigned(temp_vector_register_ew(i)(TEMP_REG_DEST)(0))))
                   & ", the counter is " & integer'image(to_integer(counts(to_integer(unsigned(exp_address))))));
            end if;
          elsif temp_vector_register_ew(i)(TEMP_REG_DEST)(0) /= exec_pass.result(i) then
            fail("lane " & integer'image(i) & " of a pass that is not an IDL changed between execute and write");
          end if;
        end loop;
        if exec_pass.is_idl then
          idl_passes := idl_passes + 1;
          if exec_pass.lane = PASSES - 1 then
            idl_pending := false;
          end if;
          if round = RESET_ROUND and not after_reset then
            reset_request <= true;
          end if;
        end if;
        pipeline_write_stall <= '1';
        write_busy := cycles(1, 6);
      elsif write_busy > 1 then
        write_busy := write_busy - 1;
      else
        pipeline_write_stall <= '0';
      end if;

      -- Execute: one pass, 2 or 3 cycles, hands over when write is free.
      pipeline_execute_done <= '0';
      if pipeline_read_done = '1' then
        exec_pass := read_pass;
        exec_full := true;
        exec_busy := cycles(1, 2);
        pipeline_execute_stall <= '1';
        for i in 0 to CORES - 1 loop
          if exec_pass.fields.instr_opcode = ALU then
            exec_pass.result(i) := std_logic_vector(unsigned(temp_vector_register_re(i)(TEMP_REG_DEST)(0)) + 1);
          else
            exec_pass.result(i) := temp_vector_register_re(i)(TEMP_REG_DEST)(0);
          end if;
        end loop;
      elsif exec_full and exec_busy > 0 then
        exec_busy := exec_busy - 1;
      elsif exec_full and pipeline_write_stall = '0' then
        for i in 0 to CORES - 1 loop
          temp_vector_register_exec(i)(TEMP_REG_DEST)(0) <= exec_pass.result(i);
        end loop;
        pipeline_execute_done <= '1';
        pipeline_execute_stall <= '0';
        exec_full := false;
      end if;

      -- Read: takes a pass from decode, reads its operands.
      pipeline_read_done <= '0';
      if pipeline_dec_done = '1' then
        read_pass := dec_pass;
        read_pass.fields := decoded;
        read_full := true;
        read_busy := cycles(1, 5);
        pipeline_read_stall <= '1';
        expected := raw;
        if dec_pass.is_idl then
          expected := idl_fields(dec_pass.word);
        end if;
        if decoded /= expected then
          fail("read got other fields than expected for word "
               & integer'image(to_integer(unsigned(dec_pass.word(31 downto 16)))) & "/"
               & integer'image(to_integer(unsigned(dec_pass.word(15 downto 0)))));
        end if;
      elsif read_full and read_busy > 0 then
        read_busy := read_busy - 1;
      elsif read_full and pipeline_execute_stall = '0' then
        -- A source read loads lane i's first operand; without one the
        -- temporaries keep whatever the last pass left there.
        for i in 0 to CORES - 1 loop
          if read_pass.fields.src1_mem_type /= UNKNOWN then
            stale(i) := std_logic_vector(to_unsigned(cycle * 8 + i, 32));
          end if;
          temp_vector_register_re(i)(TEMP_REG_DEST)(0) <= stale(i);
        end loop;
        pipeline_read_done <= '1';
        pipeline_read_stall <= '0';
        read_full := false;
      end if;

      -- Decode, FlexGripPlus' two states: IDLE takes a pass from fetch,
      -- STALL hands it to read once its stall input is low.
      pipeline_dec_done <= '0';
      exp_command := "00";
      if not decode_stalled then
        if pipeline_fd_done = '1' then
          decode_stalled <= true;
        end if;
      elsif pipeline_decode_stall_in = '0' then
        decode_stalled <= false;
        pipeline_dec_done <= '1';
        raw <= stock_decode(instruction_fd(31 downto 0));
        dec_pass.word <= instruction_fd(31 downto 0);
        dec_pass.lane <= to_integer(unsigned(warp_lane_id_fd));
        dec_pass.is_idl <= is_idl(instruction_fd(31 downto 0));
        if is_pmevent(instruction_fd(31 downto 0)) and warp_lane_id_fd = "00" then
          exp_address := instruction_fd(16 downto 13);
          exp_command := command_of(instruction_fd(31 downto 0));
          idl_pending := is_idl(instruction_fd(31 downto 0));
        end if;
        if warp_lane_id_fd = "11" then
          instructions := instructions + 1;
        end if;
      end if;

      -- Fetch: the next pass, when decode is free, after a random gap.
      pipeline_fd_done <= '0';
      if fetch_gap > 0 then
        fetch_gap := fetch_gap - 1;
      elsif not decode_stalled and pipeline_fd_done = '0' and round < ROUNDS then
        instruction_fd <= x"00000000" & PROGRAM(index);
        warp_lane_id_fd <= std_logic_vector(to_unsigned(lane, 2));
        pipeline_fd_done <= '1';
        fetch_gap := cycles(0, 1) * cycles(0, 6);
        if lane = PASSES - 1 then
          lane := 0;
          if index = PROGRAM'high then
            index := 0;
            round := round + 1;
          else
            index := index + 1;
          end if;
        else
          lane := lane + 1;
        end if;
      end if;

      -- The reference PMU steps with this cycle's command and inputs.
      for i in 0 to COUNTERS - 1 loop
        if pmu_reset = '1' or (to_integer(unsigned(pmu_address)) = i and pmu_command = "10") then
          counts(i) := (others => '0');
        elsif states(i) = S_COUNTING and pulse(i) then
          counts(i) := counts(i) + 1;
        end if;
        previous(i) := masked(i);
        command := "00";
        if to_integer(unsigned(pmu_address)) = i then
          command := pmu_command;
        end if;
        if pmu_reset = '1' or command = "10" then
          states(i) := S_RESET;
        elsif command = "01" then
          states(i) := S_COUNTING;
        elsif command = "11" then
          states(i) := S_IDLE;
        end if;
      end loop;
      -- The monitored signals change now and then.
      for i in 0 to COUNTERS - 1 loop
        if chance(0.4) then
          monitor_in(i) <= std_logic_vector(to_unsigned(cycles(0, 65535), 16))
                           & std_logic_vector(to_unsigned(cycles(0, 65535), 16));
        end if;
      end loop;

      -- The end: everything fetched has left write.
      if round = ROUNDS and not decode_stalled and pipeline_fd_done = '0' and pipeline_dec_done = '0'
         and not read_full and not exec_full and pipeline_execute_done = '0' then
        if not after_reset then
          fail("the asynchronous reset never came");
        elsif instructions /= ROUNDS * PROGRAM'length then
          fail(integer'image(instructions) & " warp instructions decoded, expected "
               & integer'image(ROUNDS * PROGRAM'length));
        elsif interlock_cycles = 0 then
          fail("no PMEVENT ever waited behind an IDL");
        end if;
        report "tb_flexpmu_fgp_kit: PASSED (" & integer'image(instructions) & " warp instructions after the reset, "
               & integer'image(commands) & " PMU commands, " & integer'image(idl_passes) & " IDL passes of 8 lanes, "
               & integer'image(interlock_cycles) & " interlock cycles, " & integer'image(cycle) & " cycles)";
        done <= true;
      end if;
    end if;
  end process;
end architecture behaviour;
