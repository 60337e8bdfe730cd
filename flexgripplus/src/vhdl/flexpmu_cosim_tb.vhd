-- flexpmu co-simulation: the testbench that launches a kernel on FlexGripPlus.
--
-- It takes the place of FlexGripPlus' own tb_top_level: instead of the
-- constants of TB/configuration/pick_bench.vhd it reads the launch from
-- LAUNCH_FILE when the simulation starts, so one elaborated design runs any
-- launch. The kernel and the global memory come in the memories' own
-- initialisation files in the working directory (system_mem.mif: one 32-bit
-- word a line; global_mem.mif: one byte a line), which flexpmu writes.
--
-- LAUNCH_FILE holds one hexadecimal value a line (the rest of a line is a
-- comment): blocks per core, registers per thread, shared memory size,
-- parameter words, dynamic shared memory, block x, y, z, grid x, y, the
-- cycle bound, then the parameter words.
--
-- It writes to RESULT_FILE: "S <ns>" when it enables the block scheduler,
-- "D <ns>" when kernel_done rises, or "T <ns>" at the cycle bound; and to
-- standard output "cycle <n>" every PROGRESS_CYCLES cycles.

library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.gpgpu_package.all;

entity flexpmu_cosim_tb is
  generic (
    LAUNCH_FILE     : string  := "flexpmu_cosim_launch.txt";
    RESULT_FILE     : string  := "flexpmu_cosim_result.txt";
    PROGRESS_CYCLES : natural := 10000
  );
end entity flexpmu_cosim_tb;

architecture launch of flexpmu_cosim_tb is
  constant PERIOD : time := 10 ns;
  constant CONFIG_WORDS : natural := 11;
  type words is array (natural range <>) of std_logic_vector(31 downto 0);

  signal clk        : std_logic := '0';
  signal host_reset : std_logic := '1';
  signal done_sim   : boolean := false;

  signal block_scheduler_en : std_logic := '0';
  signal kernel_done        : std_logic;
  signal smp_done           : std_logic;
  signal config_en          : std_logic := '0';
  signal config_cs          : std_logic := '0';
  signal config_rw          : std_logic := '1';
  signal config_adr         : std_logic_vector(31 downto 0) := (others => '0');
  signal config_wr_data     : std_logic_vector(31 downto 0) := (others => '0');
  signal config_rd_data     : std_logic_vector(31 downto 0);
  signal gmem_rd_a, gmem_rd_b     : std_logic_vector(7 downto 0);
  signal cmem_rd_a, cmem_rd_b     : std_logic_vector(7 downto 0);
  signal sysmem_rd_a, sysmem_rd_b : std_logic_vector(SYSMEM_DATA_SIZE - 1 downto 0);

  -- The launch file's values, in its order.
  impure function read_launch return words is
    file f         : text open read_mode is LAUNCH_FILE;
    variable l     : line;
    variable value : std_logic_vector(31 downto 0);
    variable head  : words(0 to CONFIG_WORDS - 1);
    variable all_v : words(0 to CONFIG_WORDS + 63);
    variable n     : natural := 0;
  begin
    while not endfile(f) and n < all_v'length loop
      readline(f, l);
      hread(l, value);
      all_v(n) := value;
      n := n + 1;
    end loop;
    assert n >= CONFIG_WORDS
      report "flexpmu_cosim_tb: " & LAUNCH_FILE & " holds " & integer'image(n) & " values, expected at least "
             & integer'image(CONFIG_WORDS) severity failure;
    return all_v(0 to n - 1);
  end function;
begin
  clk <= not clk after PERIOD / 2 when not done_sim else '0';

  uGPGPU : entity work.gpgpu_ml605_top_level
    generic map (
      GMEM_ADDR_SIZE   => GMEM_ADDR_SIZE,
      CMEM_ADDR_SIZE   => CMEM_ADDR_SIZE,
      SYSMEM_ADDR_SIZE => SYSMEM_ADDR_SIZE
    )
    port map (
      sys_clk                  => clk,
      host_reset               => host_reset,
      block_scheduler_en       => block_scheduler_en,
      kernel_done              => kernel_done,
      smp_done_signal          => smp_done,
      gmem_cntrl_en_in         => '0',
      cmem_cntrl_en_in         => '0',
      sysmem_cntrl_en_in       => '0',
      gpgpu_config_cntrl_en_in => config_en,
      gpgpu_config_top_cs      => config_cs,
      gpgpu_config_top_rw      => config_rw,
      gpgpu_config_top_adr     => config_adr,
      gpgpu_config_top_rd_data => config_rd_data,
      gpgpu_config_top_wr_data => config_wr_data,
      gmem_wr_data_a_in        => (others => '0'),
      gmem_addr_a_in           => (others => '0'),
      gmem_wr_en_a_in          => '0',
      gmem_rd_data_a_out       => gmem_rd_a,
      gmem_wr_data_b_in        => (others => '0'),
      gmem_addr_b_in           => (others => '0'),
      gmem_wr_en_b_in          => '0',
      gmem_rd_data_b_out       => gmem_rd_b,
      cmem_wr_data_a_in        => (others => '0'),
      cmem_addr_a_in           => (others => '0'),
      cmem_wr_en_a_in          => '0',
      cmem_rd_data_a_out       => cmem_rd_a,
      cmem_wr_data_b_in        => (others => '0'),
      cmem_addr_b_in           => (others => '0'),
      cmem_wr_en_b_in          => '0',
      cmem_rd_data_b_out       => cmem_rd_b,
      sysmem_wr_data_a_in      => (others => '0'),
      sysmem_addr_a_in         => (others => '0'),
      sysmem_wr_en_a_in        => '0',
      sysmem_rd_data_a_out     => sysmem_rd_a,
      sysmem_wr_data_b_in      => (others => '0'),
      sysmem_addr_b_in         => (others => '0'),
      sysmem_wr_en_b_in        => '0',
      sysmem_rd_data_b_out     => sysmem_rd_b
    );

  pLaunch : process
    constant launch_v  : words := read_launch;
    constant max_cycle : natural := to_integer(unsigned(launch_v(10)(30 downto 0)));
    file result        : text open write_mode is RESULT_FILE;
    variable l         : line;
    variable cycle     : natural := 0;

    procedure config_write(address : natural; value : std_logic_vector(31 downto 0)) is
    begin
      config_en      <= '1';
      config_cs      <= '1';
      config_rw      <= '0';
      config_adr     <= std_logic_vector(to_unsigned(address, 32));
      config_wr_data <= value;
      wait until rising_edge(clk);
    end procedure;
  begin
    -- Reset, held for several edges as FlexGripPlus' testbench holds it.
    host_reset <= '1';
    for i in 1 to 8 loop
      wait until rising_edge(clk);
    end loop;
    host_reset <= '0';
    wait until rising_edge(clk);
    -- Configuration registers (gpgpu_configuration): 0 blocks per core,
    -- 1 registers, 2 shared memory, 3 parameter words, 4 dynamic shared
    -- memory, 5-7 block, 8-9 grid; parameters from CONFIG_PARAMS_START.
    for i in 0 to 9 loop
      config_write(i, launch_v(i));
    end loop;
    for i in 0 to launch_v'length - CONFIG_WORDS - 1 loop
      config_write(to_integer(unsigned(CONFIG_PARAMS_START)) + i, launch_v(CONFIG_WORDS + i));
    end loop;
    config_en <= '0';
    config_cs <= '0';
    config_rw <= '1';
    wait until rising_edge(clk);
    -- Launch, and wait for the kernel.
    block_scheduler_en <= '1';
    write(l, string'("S ") & integer'image(now / 1 ns));
    writeline(result, l);
    wait until rising_edge(clk);
    block_scheduler_en <= '0';
    cycle := 1;
    while kernel_done /= '1' loop
      if cycle >= max_cycle then
        write(l, string'("T ") & integer'image(now / 1 ns));
        writeline(result, l);
        done_sim <= true;
        wait;
      end if;
      if cycle mod PROGRESS_CYCLES = 0 then
        write(l, string'("cycle ") & integer'image(cycle));
        writeline(output, l);
      end if;
      wait until rising_edge(clk);
      cycle := cycle + 1;
    end loop;
    write(l, string'("D ") & integer'image(now / 1 ns));
    writeline(result, l);
    done_sim <= true;
    wait;
  end process;
end architecture launch;
