//! The thesis' experiment as the thesis did it: FlexGripPlus' benchmarks
//! run on its own RTL, every signal of the SM counted for toggle activity
//! (section 2.2: ModelSim's toggle coverage over edge detection, FFT,
//! matrix multiplication, sorting, reduction, …), and the signals ranked
//! by how often they change — here on the imported RTL, each application
//! weighing the same whatever its length.

use flexpmu_ir::Design as IrDesign;

use super::error::AppError;
use super::run::on_imported_watched;
use super::Application;
use crate::rtl::toggles::{SignalToggles, ToggleCounter};

/// The thesis' benchmarks (section 2.2) as `applications/` ships them,
/// those FlexGripPlus' 8-core build runs: edge detection, FFT,
/// floating-point matrix multiplication, sorting, reduction, vector
/// addition (float) and M3. Scalar product, transpose and integer vector
/// addition ship for a 32-core build; NN does not ship.
pub const THESIS_BENCHMARKS: [&str; 7] = [
    "edge/32th",
    "FFT",
    "MxM_optimized_Float",
    "Sort/version_1",
    "Reduction",
    "VectorAdd_float",
    "m3",
];

/// The thesis' benchmarks left out, and why.
pub const LEFT_OUT: &str = "Scalar_product_vectors, Transpose and VectorAdd_integer are written for a 32-core build; NN does not ship";

/// One application's run and its signals' activity.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AppActivity {
    pub application: String,
    /// Cycles from the block scheduler's start to `kernel_done` (None: the
    /// cycle bound came first).
    pub cycles: Option<u64>,
    /// Periods counted (the whole run, from power-up).
    pub periods: u64,
    #[serde(skip)]
    pub signals: Vec<SignalToggles>,
}

/// What the scopes of a count are.
pub struct Scopes<'a> {
    /// Instance paths whose signals are counted (`ustreamingmultiprocessor`).
    pub counted: &'a [String],
    /// Instance paths below them left out (the kit's PMU).
    pub excluded: &'a [String],
}

/// `app` (named `name`) on `imported` with every signal of `scopes`
/// counted in every period.
pub fn activity_of(
    imported: &IrDesign,
    name: &str,
    app: &Application,
    cores: u64,
    max_cycles: u64,
    scopes: &Scopes,
    on_cycle: &mut dyn FnMut(u64),
) -> Result<AppActivity, AppError> {
    let launch = app.launch.fgp(cores, max_cycles)?;
    let mut counter: Option<ToggleCounter> = None;
    let run = on_imported_watched(
        imported,
        &launch,
        app.launch.read_words,
        on_cycle,
        &mut |_, sim| {
            counter
                .get_or_insert_with(|| ToggleCounter::new(sim, scopes.counted, scopes.excluded))
                .sample(sim)
        },
    )?;
    let counter = counter.ok_or_else(|| AppError::Missing("the run took no period".into()))?;
    if counter.is_empty() {
        return Err(AppError::Missing(format!(
            "no signal of the imported GPGPU is below {}",
            scopes.counted.join(", ")
        )));
    }
    Ok(AppActivity {
        application: name.to_string(),
        cycles: run.observed.cycles(),
        periods: counter.periods(),
        signals: counter.finish(),
    })
}

/// What signals are ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// Periods in which the value changed (a bus counts once a period).
    Changes,
    /// Bit transitions (ModelSim's toggle counts, summed over the bits).
    BitToggles,
}

/// One signal in the ranking.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RankedSignal {
    pub names: Vec<String>,
    pub width: usize,
    /// The FlexGripPlus unit it belongs to.
    pub unit: String,
    /// Its measure per period, the mean over the applications.
    pub rate: f64,
    /// Per application, in the order given: periods it changed in.
    pub changes: Vec<u64>,
    /// Per application: bit transitions.
    pub bit_toggles: Vec<u64>,
}

/// The signals of `runs` (one design, one scope: the same signals in the
/// same order) ranked by `by`, most active first.
pub fn rank(runs: &[AppActivity], by: RankBy) -> Vec<RankedSignal> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let mut ranked: Vec<RankedSignal> = first
        .signals
        .iter()
        .enumerate()
        .map(|(k, signal)| {
            let of = |f: fn(&SignalToggles) -> u64| -> Vec<u64> {
                runs.iter().map(|r| f(&r.signals[k])).collect()
            };
            let changes = of(|s| s.changes);
            let bit_toggles = of(|s| s.bit_toggles);
            let measure = match by {
                RankBy::Changes => &changes,
                RankBy::BitToggles => &bit_toggles,
            };
            let rate = measure
                .iter()
                .zip(runs)
                .map(|(&count, run)| count as f64 / run.periods.max(1) as f64)
                .sum::<f64>()
                / runs.len() as f64;
            RankedSignal {
                unit: crate::rtl::units::unit(&signal.names[0]),
                names: signal.names.clone(),
                width: signal.width,
                rate,
                changes,
                bit_toggles,
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.rate
            .total_cmp(&a.rate)
            .then_with(|| a.names.cmp(&b.names))
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signal(name: &str, changes: u64, bit_toggles: u64) -> SignalToggles {
        SignalToggles {
            names: vec![name.into()],
            width: 4,
            changes,
            bit_toggles,
        }
    }

    #[test]
    fn each_application_weighs_the_same() {
        let long = AppActivity {
            application: "long".into(),
            cycles: Some(1000),
            periods: 1000,
            signals: vec![signal("sm.a", 500, 500), signal("sm.b", 10, 40)],
        };
        let short = AppActivity {
            application: "short".into(),
            cycles: Some(10),
            periods: 10,
            signals: vec![signal("sm.a", 0, 0), signal("sm.b", 10, 40)],
        };
        let ranked = rank(&[long.clone(), short.clone()], RankBy::Changes);
        // b: (0.01 + 1) / 2 = 0.505; a: (0.5 + 0) / 2 = 0.25.
        assert_eq!(ranked[0].names, ["sm.b"]);
        assert!((ranked[0].rate - 0.505).abs() < 1e-12);
        assert_eq!(ranked[1].changes, [500, 0]);
        let by_bits = rank(&[long], RankBy::BitToggles);
        assert_eq!(by_bits[0].names, ["sm.a"]);
        assert!((by_bits[0].rate - 0.5).abs() < 1e-12);
    }
}
