library ieee;
use ieee.std_logic_1164.all;
use work.gpgpu_package.all;
use work.flexpmu_fgp.all;

-- A stand-in for FlexGripPlus' edited SMP/streaming_multiprocessor.vhd:
-- like it, it uses the kit's package and instantiates the kit's PMU, so it
-- only analyses after them (the order the kit's README gives).
entity streaming_multiprocessor is
  port (
    clk_in      : in  std_logic;
    reset       : in  std_logic;
    pmu_address : in  std_logic_vector(3 downto 0);
    pmu_command : in  std_logic_vector(1 downto 0);
    monitor_out : out std_logic_vector(31 downto 0)
  );
end entity streaming_multiprocessor;

architecture arch of streaming_multiprocessor is
  signal monitor_in : flexpmu_monitor_array(0 to 15) := (others => (others => '0'));
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
end architecture arch;
