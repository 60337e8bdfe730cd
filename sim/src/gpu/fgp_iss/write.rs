//! The write stage for one thread (`pipeline_write.vhd`, IDLE to
//! INCREMENT_ADDR): the destination by its space (a register, shared or
//! global memory, an address register), then the condition codes, then
//! the address register's post-increment; and the records a run keeps.

use flexpmu_isa::decode_stage::{Class, DataType, Space, Stage};

use super::operands::{
    address_index, global_address, global_size, post_increment, shared_store_address,
    shared_store_size, write_register, Memories, GLOBAL_ADDRESS_MASK, SHARED_ADDRESS_MASK,
};
use super::state::{FgpThread, FlagRecord, Records, StoreRecord, WriteRecord};

/// The write stage for thread `index` (executing: its mask bit is set):
/// `result` is the execute stage's destination word, `src` the sources
/// the read stage handed on, `flags` the execute stage's new flags.
#[allow(clippy::too_many_arguments)]
pub fn write_lane(
    stage: &Stage,
    thread: &mut FgpThread,
    index: usize,
    result: u32,
    src: [u32; 3],
    flags: u8,
    memories: &mut Memories,
    records: &mut Records,
    pc: u32,
) -> Result<(), String> {
    let dest = stage.dest;
    let ty = stage.access.dest;
    let writes =
        !(stage.class == Class::Nop || ty == DataType::None || dest.space == Space::Unknown);
    if writes {
        match dest.space {
            Space::Register => {
                if let Some((register, value)) =
                    write_register(memories.registers, thread, dest.value, ty, result)
                {
                    if records.enabled {
                        records.writes[index].push(WriteRecord {
                            register,
                            value,
                            pc,
                        });
                    }
                }
            }
            Space::Shared => {
                let (size, _) = shared_store_size(stage.mov_size);
                let address = memories
                    .shared_base
                    .wrapping_add(shared_store_address(stage, thread));
                for i in 0..size {
                    let at = (address.wrapping_add(i) & SHARED_ADDRESS_MASK) as usize;
                    memories.shared[at] = (src[2] >> (8 * i)) as u8;
                }
            }
            Space::Global => {
                let (size, _, _) = global_size(stage.mov_size);
                let address = global_address(stage, memories.registers, thread, dest.value);
                for i in 0..size {
                    let at = (address + i) & GLOBAL_ADDRESS_MASK;
                    let value = (result >> (8 * i)) as u8;
                    memories.global[at as usize] = Some(value);
                    if records.enabled {
                        records.stores.push(StoreRecord {
                            address: at,
                            value,
                            thread: index,
                            pc,
                        });
                    }
                }
            }
            Space::Address => {
                thread.addr[address_index((dest.value & 3) as u8)] = result;
            }
            Space::Local => {
                return Err("a local-memory store (FlexGripPlus' write stage has no branch for it and hangs)".into());
            }
            _ => {}
        }
    }
    // CHECK_PRED_REGS / COMPUTE_PRED_REGS (compute_pred_flags passes the
    // execute stage's flags through).
    if stage.write_pred {
        let register = stage.set_pred_reg & 3;
        thread.cc[usize::from(register)] = flags;
        if records.enabled {
            records.flags[index].push(FlagRecord {
                register,
                value: flags,
                pc,
            });
        }
    }
    // CHECK_INCREMENT_ADDR: always A4.
    if stage.addr_incr {
        thread.addr[3] = thread.addr[3].wrapping_add(post_increment(stage));
    }
    Ok(())
}
