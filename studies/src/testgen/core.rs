//! What test programs are judged on: a core a program's fault campaign
//! runs on. The search, the finalists, the measurement and the baselines
//! see a core through this interface only, so a test can be evolved on
//! flexpmu's SM slice ([`SliceCore`], here) or on FlexGripPlus' own
//! imported RTL (`flexpmu_studies::rtl::testgen`).

use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::{Sm, SmConfig};

use super::error::JudgeError;
use super::expected::Expected;
use crate::faults::{Campaign, Options, Target};

/// A core test programs are judged on.
pub trait Core: Sync + Send {
    /// `program`'s campaign on `iss`'s launch, seeded with `seed` (the
    /// flips' cycles), its fault-free run done; an error when that run is
    /// not the reference ISS' (a judge never scores a program the core
    /// runs wrong). Its golden cycles are what the budget counts.
    fn campaign(
        &self,
        program: &[u32],
        iss: &Iss,
        seed: u64,
    ) -> Result<Box<dyn Target>, JudgeError>;

    /// Cycles of `program`'s fault-free run on `iss`'s launch, as its
    /// campaign counts them (without a campaign where the core can).
    fn cycles(&self, program: &[u32], iss: &Iss) -> Result<u64, JudgeError>;

    /// What a fault-free run of `program` on `iss`'s launch leaves: the
    /// values the test checks on this core.
    fn expected(&self, program: &[u32], iss: &Iss) -> Result<Expected, JudgeError>;

    /// Inputs per channel of the core's PMU: what a PMEVENT may select.
    fn selectors(&self) -> u8;

    /// Why programs cannot be judged on launches other than the judge's
    /// (an rbe's loop launch); `None`: they can.
    fn launch_bound(&self) -> Option<&'static str> {
        None
    }
}

/// flexpmu's SM slice as `config` gives it.
pub struct SliceCore {
    pub config: SmConfig,
}

impl Core for SliceCore {
    fn campaign(
        &self,
        program: &[u32],
        iss: &Iss,
        seed: u64,
    ) -> Result<Box<dyn Target>, JudgeError> {
        let options = Options {
            matrix: false,
            ..Options::default()
        };
        let campaign = Campaign::with_options(iss, program, self.config.clone(), seed, &options)?;
        let golden = &campaign.golden().run;
        let reference = golden.replay_on_iss(&mut iss.clone(), program)?;
        let (threads_differing, memory) = golden.differences(&reference);
        if !threads_differing.is_empty() || !memory {
            return Err(JudgeError::Mismatch {
                threads: threads_differing.len(),
                memory: if memory { "equal" } else { "differs" },
            });
        }
        Ok(Box::new(campaign))
    }

    fn cycles(&self, program: &[u32], iss: &Iss) -> Result<u64, JudgeError> {
        Ok(Sm::new(iss, program, self.config.clone())?.run()?.cycles)
    }

    fn expected(&self, program: &[u32], iss: &Iss) -> Result<Expected, JudgeError> {
        let run = Sm::new(iss, program, self.config.clone())?.run()?;
        Ok(Expected::of(&run, iss)?)
    }

    fn selectors(&self) -> u8 {
        self.config.selectors() as u8
    }
}
