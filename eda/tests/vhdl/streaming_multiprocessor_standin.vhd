library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.gpgpu_package.all;
use work.flexpmu_fgp.all;

-- A stand-in for FlexGripPlus' edited SMP/streaming_multiprocessor.vhd:
-- like it, it uses the kit's package and instantiates the kit's PMU, so it
-- only analyses after them (the order the kit's README gives), and it
-- declares the FlexGripPlus signals the README's channel assignments
-- read, with FlexGripPlus' types. The test puts those assignments where
-- the marker line is.
entity streaming_multiprocessor is
  generic (
    GMEM_ADDR_SIZE : integer := 32
  );
  port (
    clk_in         : in  std_logic;
    reset          : in  std_logic;
    pmu_address    : in  std_logic_vector(3 downto 0);
    pmu_command    : in  std_logic_vector(1 downto 0);
    gmem_wr_data_b : out std_logic_vector(7 downto 0);
    gmem_addr_b    : out std_logic_vector(GMEM_ADDR_SIZE - 1 downto 0);
    monitor_out    : out std_logic_vector(31 downto 0)
  );
end entity streaming_multiprocessor;

architecture arch of streaming_multiprocessor is
  signal program_cntr_fd         : std_logic_vector(31 downto 0);
  signal warp_id_fd              : std_logic_vector(4 downto 0);
  signal warp_lane_id_dr         : std_logic_vector(1 downto 0);
  signal instr_opcode_dr         : instr_opcode_type;
  signal src1_mem_type_dr        : mem_type;
  signal pipeline_dec_done       : std_logic;
  signal warp_lane_id_re         : std_logic_vector(1 downto 0);
  signal instruction_mask_re     : std_logic_vector(31 downto 0);
  signal temp_vector_register_re : temp_vector_register;
  signal dest_mem_type_ew        : mem_type;
  signal temp_vector_register_ew : temp_vector_register;
  signal pipeline_execute_done   : std_logic;
  signal warp_state_ww           : warp_state_type;
  signal gprs_wr_en_b            : wr_en_array;
  signal monitor_in : flexpmu_monitor_array(0 to 15);
begin
  uFlexpmuPmu : entity work.flexpmu_fgp_pmu
    port map (
      clk_in      => clk_in,
      reset       => reset,
      pmu_address => pmu_address,
      pmu_command => pmu_command,
      monitor_in  => monitor_in,
      monitor_out => monitor_out
    );
  gmem_wr_data_b <= (others => '0');
  gmem_addr_b <= (others => '0');
  -- CHANNEL ASSIGNMENTS
end architecture arch;
