//! The cycle loop: each cycle, every unit's move is planned from the
//! core's registered outputs ([`Sm::plan_cycle`]), the core is driven,
//! settles and is clocked, and the behavioural units move at the same
//! edge ([`Sm::clock_edge`]); rounds, set-up and the final reset around
//! it.

use std::collections::VecDeque;

use super::core_ports::Observed;
use super::cycle_view::CycleView;
use super::observer::RunObserver;
use super::result::RoundRecord;
use super::timing::{self, Timing};
use super::warp_unit::{Scheduler, WarpState};
use super::{CycleWork, HarnessState, Phase, Pipeline, Records, Sm, SmError, SmRun, PASSES};
use crate::gpu::iss::{self, WarpContext, DEFAULT_STEP_LIMIT};

/// Whether `program` may run an instruction more than once per warp: it
/// has a BRA to an address at or before its own (a word that does not
/// decode stops the run when reached, so it is skipped here).
pub(super) fn loops(program: &[u32]) -> bool {
    let mut address = 0;
    while address < program.len() {
        match flexpmu_isa::g80::decode(program, address) {
            Ok((flexpmu_isa::g80::Instruction::Bra { target, .. }, _)) if target <= address => {
                return true
            }
            Ok((_, used)) => address += used,
            Err(_) => address += 1,
        }
    }
    false
}

impl Sm {
    /// Cycles the pipeline is idle before round `round` can issue.
    fn idle_before(&self, round: usize) -> u64 {
        match self.config.timing {
            Timing::Simple => 1,
            Timing::FlexGripPlus => {
                let warps = self.rounds[round].len() as u64;
                let blocks = {
                    let range = &self.rounds[round];
                    let first = self.warps[range.start].context.block_index;
                    let last = self.warps[range.end - 1].context.block_index;
                    u64::from(last - first + 1)
                };
                let lead = if round == 0 {
                    timing::START_CYCLES
                } else {
                    timing::ROUND_SWITCH_CYCLES
                };
                lead + timing::setup_cycles(blocks, self.threads_per_block, warps, self.params)
                    + timing::FIRST_ISSUE_CYCLES
            }
        }
    }

    /// The cycle bound when none is given: every warp instruction's
    /// passes through the slowest stage one after another, set-up, slack.
    pub(super) fn default_max_cycles(&self) -> u64 {
        let per_pass = 120 + self.config.memory_cycles;
        let setup: u64 = (0..self.rounds.len()).map(|r| self.idle_before(r)).sum();
        let warp_instructions = match self.loop_instructions {
            // Twice the ISS's count: its reads were 0, the SM's are not.
            Some(count) => count.saturating_mul(2),
            None if loops(&self.program) => DEFAULT_STEP_LIMIT,
            None => (self.warps.len() as u64).saturating_mul(self.program.len() as u64 + 1),
        };
        warp_instructions
            .saturating_mul(u64::from(PASSES) * per_pass)
            .saturating_add(setup)
            .saturating_add(1000)
    }

    /// The harness's state before the first cycle.
    fn start(&self) -> HarnessState {
        HarnessState {
            pipeline: Pipeline {
                phase: Phase::Idle {
                    until: self.idle_before(0),
                    round: 0,
                },
                scheduler: Scheduler::default(),
                fetch: None,
                decoding: None,
                last_decoding: None,
                read: None,
                in_execute: VecDeque::new(),
                last_executed: None,
                write_free_at: 0,
                observed: Observed::default(),
            },
            records: Records::default(),
            end: None,
            cycle: 0,
        }
    }

    /// Runs from `from` (or the start) to the end; a failed run still
    /// ends its waveform (whose own error is secondary to the one being
    /// reported), up to the failure.
    pub(super) fn execute(
        &mut self,
        from: Option<HarnessState>,
        observer: &mut dyn RunObserver,
    ) -> Result<SmRun, SmError> {
        let state = from.unwrap_or_else(|| self.start());
        let mut at = state.cycle;
        let result = self.execute_from(state, observer, &mut at);
        if let Err(error) = &result {
            observer.failed(at, error);
            let _ = self.core.finish();
        }
        result
    }

    /// Runs from `state` (the harness's state at its cycle) on, keeping
    /// the cycle it is in at `at`.
    fn execute_from(
        &mut self,
        state: HarnessState,
        observer: &mut dyn RunObserver,
        at: &mut u64,
    ) -> Result<SmRun, SmError> {
        let max_cycles = self.max_cycles();
        let every = observer.checkpoint_every().map(|every| every.max(1));
        let HarnessState {
            mut pipeline,
            mut records,
            mut end,
            cycle: first,
        } = state;

        for cycle in first.. {
            *at = cycle;
            if every.is_some_and(|every| cycle % every == 0) {
                let state = HarnessState {
                    pipeline,
                    records,
                    end,
                    cycle,
                };
                if observer.checkpoint(self, &state) {
                    return Err(SmError::Stopped(cycle));
                }
                HarnessState {
                    pipeline,
                    records,
                    end,
                    ..
                } = state;
            }
            let final_reset = end.is_some();
            if cycle >= max_cycles && !final_reset {
                return Err(SmError::Timeout(max_cycles));
            }
            let work = self.plan_cycle(&mut pipeline, cycle, final_reset)?;
            self.drive_core(&mut pipeline, &work);
            self.core.settle()?;
            observer.cycle_view(cycle, &CycleView::new(self, &pipeline, &records, &work));
            self.record_pmu(&mut records, cycle, &work);
            self.core.step()?;
            if final_reset {
                self.core.finish()?;
                let (cycles, counters_at_end) = end.take().unwrap_or_default();
                return Ok(self.result(records, cycles, counters_at_end));
            }
            self.clock_edge(&mut pipeline, &mut records, cycle, work)?;
            match pipeline.phase {
                Phase::Running { round } if self.round_drained(&pipeline, round) => {
                    records.rounds.push(RoundRecord {
                        warps: self.rounds[round].len(),
                        end_cycle: cycle + 1,
                    });
                    pipeline.phase = if round + 1 < self.rounds.len() {
                        Phase::Idle {
                            until: cycle + 1 + self.idle_before(round + 1),
                            round: round + 1,
                        }
                    } else {
                        Phase::Ending {
                            until: cycle + 1 + self.end_cycles(),
                        }
                    };
                }
                Phase::Idle { until, round } if cycle + 1 >= until => {
                    pipeline.phase = Phase::Running { round };
                    pipeline.scheduler = Scheduler::default();
                    self.carry_registers(round);
                }
                Phase::Ending { until } if cycle + 1 >= until => {
                    end = Some((cycle + 1, self.core.counts()));
                }
                _ => {}
            }
        }
        unreachable!("the cycle loop only ends by returning")
    }

    fn end_cycles(&self) -> u64 {
        match self.config.timing {
            Timing::Simple => 0,
            Timing::FlexGripPlus => timing::END_CYCLES,
        }
    }

    /// Before the edge: what each unit does in this cycle, from the
    /// core's registered outputs.
    fn plan_cycle(
        &mut self,
        pipeline: &mut Pipeline,
        cycle: u64,
        final_reset: bool,
    ) -> Result<CycleWork, SmError> {
        pipeline.observed.clear_strobes();
        // The processor reset: at power-up, before each later round (the
        // SM controller resets the SM), and after the kernel.
        let reset = final_reset
            || match pipeline.phase {
                Phase::Idle { until, round } => {
                    cycle == until - self.idle_before(round) && (round > 0 || cycle == 0)
                }
                _ => false,
            };
        let Phase::Running { round } = pipeline.phase else {
            let carry = match pipeline.phase {
                Phase::Idle { until, round } if round > 0 && cycle + 1 >= until => Some(round),
                _ => None,
            };
            return Ok(CycleWork {
                reset,
                final_reset,
                carry,
                ..CycleWork::default()
            });
        };
        self.release_warps(cycle, round);
        let (fetch_stall, dec_done, execute_done, execute_stall) = {
            let uut = self.core.view();
            (
                uut.fetch_stall,
                uut.dec_done,
                uut.execute_done,
                uut.execute_stall,
            )
        };
        let write_back = if execute_done {
            self.receive_pass(pipeline, cycle)?
        } else {
            None
        };
        let write_stall = cycle < pipeline.write_free_at;
        // Read sends its pass when it is done and execute can take it.
        let read_ready = pipeline
            .read
            .as_ref()
            .is_some_and(|slot| cycle >= slot.ready_at);
        let execute_busy = match self.config.timing {
            Timing::FlexGripPlus => execute_stall,
            Timing::Simple => write_stall,
        };
        let read_done = match pipeline.read.as_ref() {
            Some(slot) if read_ready && !execute_busy => Some(self.operands(slot)),
            _ => None,
        };
        // As FlexGripPlus' stages do with a faulty core: decode's done
        // without a new pass hands over what it holds (the last pass fetch
        // gave it), and a read stage that is busy ignores it (the pass is
        // lost).
        let handed = if dec_done {
            pipeline.decoding.take().or(pipeline.last_decoding)
        } else {
            None
        };
        let read_busy = pipeline.read.is_some() && read_done.is_none();
        let new_pass = match handed {
            Some(pass) if !read_busy => Some(self.take_decoded(pass, cycle)?),
            _ => None,
        };
        // Read stalls decode until the cycle it sends its pass on.
        let read_stall = new_pass.is_some() || (pipeline.read.is_some() && read_done.is_none());
        // With FlexGripPlus timing fetch hands a pass to decode the cycle
        // after decode has handed its pass on, not in the same one (its
        // fetch sees decode's stall drop a cycle later: measured with
        // `flexpmu cosim`).
        let decode_leaving = dec_done && self.config.timing == Timing::FlexGripPlus;
        let fetch_done = match pipeline.fetch.as_ref() {
            Some(slot) if cycle >= slot.ready_at && !fetch_stall && !decode_leaving => {
                Some(slot.pass)
            }
            _ => None,
        };
        let issue = self.schedule(pipeline, cycle, round)?;
        Ok(CycleWork {
            reset,
            final_reset,
            carry: None,
            write_back,
            read_done,
            new_pass,
            fetch_done,
            issue,
            read_stall,
            write_stall,
        })
    }

    /// At the edge: the behavioural units move with the core's registers.
    fn clock_edge(
        &mut self,
        pipeline: &mut Pipeline,
        records: &mut Records,
        cycle: u64,
        work: CycleWork,
    ) -> Result<(), SmError> {
        if let Some(write_back) = work.write_back {
            self.write_back(pipeline, records, cycle, write_back)?;
        }
        if let Some(operands) = work.read_done {
            self.send_pass(pipeline, records, cycle, operands)?;
        }
        if let Some(slot) = work.new_pass {
            pipeline.read = Some(slot);
        }
        if let Some(pass) = work.fetch_done {
            pipeline.fetch = None;
            pipeline.decoding = Some(pass);
            pipeline.last_decoding = Some(pass);
            if pass.pass == 0 {
                records.warp_instructions += 1;
            }
        }
        if let Some(slot) = work.issue {
            pipeline.fetch = Some(slot);
        }
        Ok(())
    }

    /// Round `round` starts: its threads take the registers and condition
    /// codes their warp slots' earlier threads left ([`iss::rounds`]).
    fn carry_registers(&mut self, round: usize) {
        let contexts: Vec<WarpContext> = self.warps.iter().map(|w| w.context).collect();
        iss::rounds::carry_registers(&mut self.threads, &contexts, &self.rounds, round);
    }

    /// Round `round` is over: its warps have finished and nothing is in
    /// flight.
    fn round_drained(&self, pipeline: &Pipeline, round: usize) -> bool {
        let uut = self.core.view();
        pipeline.fetch.is_none()
            && pipeline.decoding.is_none()
            && pipeline.read.is_none()
            && pipeline.in_execute.is_empty()
            && !uut.dec_done
            && !uut.execute_done
            && self.rounds[round]
                .clone()
                .all(|w| self.warps[w].state == WarpState::Finished)
    }
}
