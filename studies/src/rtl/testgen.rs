//! FlexGripPlus' imported GPGPU as a core test programs are judged on
//! (`flexpmu testgen --core fgp-rtl`): each program a campaign on the
//! RTL ([`Campaign`] on [`OnGpgpu`]), its fault-free run held to the reference ISS,
//! its cycles FlexGripPlus' own (clock edges from power-up, as its
//! campaigns count them), its expected values what FlexGripPlus left.

use crate::faults::Target;
use crate::testgen::core::Core;
use crate::testgen::error::JudgeError;
use crate::testgen::expected::Expected;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Iss;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;

use super::faults::OnGpgpu;
use crate::faults::Campaign;
use flexpmu_flexgripplus::rtl::ImportedGpgpu;
use flexpmu_sim::progress::Quiet;

/// The name candidates' listings carry (messages name the program by it).
const PROGRAM: &str = "testgen candidate";

/// FlexGripPlus' GPGPU on one vector-addition launch.
pub struct RtlCore {
    gpgpu: ImportedGpgpu,
    launch: VectorAdd,
    /// The launch as the judge states it (programs run on this one only).
    iss: Iss,
    config: SmConfig,
}

impl RtlCore {
    /// Programs on `launch` on `gpgpu`, beside the SM slice as `config`
    /// (the co-simulation's reference; its PMU must be on).
    pub fn new(
        gpgpu: ImportedGpgpu,
        launch: VectorAdd,
        config: SmConfig,
    ) -> Result<RtlCore, JudgeError> {
        let iss = launch.iss().map_err(JudgeError::Iss)?;
        Ok(RtlCore {
            gpgpu,
            launch,
            iss,
            config,
        })
    }

    /// The launch programs are judged on.
    pub fn iss(&self) -> &Iss {
        &self.iss
    }

    fn run(&self, program: &[u32], iss: &Iss, seed: u64) -> Result<Campaign<OnGpgpu>, JudgeError> {
        if iss.geometry() != self.iss.geometry() || iss.params() != self.iss.params() {
            return Err(JudgeError::Core(
                "FlexGripPlus' RTL judges programs on the launch it was set up with only".into(),
            ));
        }
        let listing = Listing::from_words(PROGRAM, program);
        Campaign::on(
            &self.gpgpu,
            &listing,
            &self.launch,
            &self.config,
            seed,
            false,
            &mut Quiet,
        )
        .map_err(|e| JudgeError::Core(format!("FlexGripPlus' imported RTL: {e}")))
    }
}

impl Core for RtlCore {
    fn campaign(
        &self,
        program: &[u32],
        iss: &Iss,
        seed: u64,
    ) -> Result<Box<dyn Target>, JudgeError> {
        Ok(Box::new(self.run(program, iss, seed)?))
    }

    fn cycles(&self, program: &[u32], iss: &Iss) -> Result<u64, JudgeError> {
        Ok(self.run(program, iss, 0)?.golden_cycles())
    }

    fn expected(&self, program: &[u32], iss: &Iss) -> Result<Expected, JudgeError> {
        Ok(self.run(program, iss, 0)?.expected().clone())
    }

    fn selectors(&self) -> u8 {
        // The kit's PMU is the thesis': one input per channel.
        1
    }

    fn launch_bound(&self) -> Option<&'static str> {
        Some("FlexGripPlus' campaigns run the vector-addition launch the search runs on, not the suite's loop launches")
    }
}
