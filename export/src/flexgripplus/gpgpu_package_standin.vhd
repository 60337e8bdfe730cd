library ieee;
use ieee.std_logic_1164.all;

-- Only what the kit's wrappers, testbench and channel assignments use,
-- under FlexGripPlus' names and with its shapes (8 lanes a pass, 6
-- temporaries of 4 words per lane). In a FlexGripPlus project, FlexGripPlus' own gpgpu_package
-- takes its place.
package gpgpu_package is
  constant CORES          : integer := 8;
  constant TEMP_REG_COUNT : integer := 6;
  constant TEMP_REG_SRC1  : integer := 0;
  constant TEMP_REG_SRC2  : integer := 2;
  constant TEMP_REG_DEST  : integer := 0;

  type instr_opcode_type is (MOV, ALU, FLOW, NOP, UNKNOWN);
  type mov_opcode_type is (LOAD, STORE, MOV, UNKNOWN);
  type mem_type is (REG, MEM_SHARED, MEM_LOCAL, MEM_GLOBAL, MEM_CONST,
                    ADDRESS_MEM, ADDRESS_ADDRESS, ADDRESS, FLAGS, UNKNOWN);
  type mem_opcode_type is (READ, READ_GATHER, WRITE, WRITE_SCATTER);
  type warp_state_type is (READY, ACTIVE, WAITING_FENCE, FINISHED);
  type wr_en_array is array (CORES - 1 downto 0) of std_logic;
  type data_type is (DT_U8, DT_S8, DT_U16, DT_S16, DT_U64, DT_U128, DT_U32,
                     DT_S32, DT_F32, DT_F64, DT_NONE, DT_UNKNOWN);

  -- Per lane: TEMP_REG_COUNT temporaries of up to 4 words (a U128).
  type vector_word_register is array (3 downto 0) of std_logic_vector(31 downto 0);
  type vector_register_array is array (TEMP_REG_COUNT - 1 downto 0) of vector_word_register;
  type temp_vector_register is array (CORES - 1 downto 0) of vector_register_array;
end package gpgpu_package;
