//! Statistical fault injection after Leveugle, Calvez, Maistri and
//! Vanhauwaert, "Statistical fault injection: quantified error and
//! confidence" (DATE 2009): how many faults to draw from a population for
//! a margin of error at a confidence level, and the margin a sample gives.

/// The two-sided standard normal quantile for `confidence` (0.99 ->
/// 2.576): the `t` of the paper. Acklam's rational approximation, good to
/// about 1e-9.
pub fn t_value(confidence: f64) -> f64 {
    inverse_normal(0.5 + confidence / 2.0)
}

fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.02425;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    }
}

/// The margin of error a sample may be asked for, as every command takes
/// `--margin`: a fraction strictly between 0 and 0.5 (a margin of 0.5 or
/// more says nothing of a proportion); why not, otherwise.
pub fn check_margin(margin: f64) -> Result<f64, String> {
    match margin > 0.0 && margin < 0.5 {
        true => Ok(margin),
        false => Err(format!(
            "--margin {margin}: expected a fraction between 0 and 0.5 (e.g. 0.01 for 1 %)"
        )),
    }
}

/// Faults to inject out of `population` for a margin of error `margin`
/// (0.01 = 1 %) at `confidence` (0.99), with `p` the estimated proportion
/// (0.5 when unknown, the worst case): n = N / (1 + e²(N−1) / (t²·p(1−p))).
pub fn sample_size(population: u64, margin: f64, confidence: f64, p: f64) -> u64 {
    if population == 0 {
        return 0;
    }
    let n = population as f64;
    let t = t_value(confidence);
    let size = n / (1.0 + margin * margin * (n - 1.0) / (t * t * p * (1.0 - p)));
    (size.ceil() as u64).min(population)
}

/// The margin of error of a proportion `p` measured on `sample` faults
/// out of `population` at `confidence` (0 when every fault was run).
pub fn margin(population: u64, sample: u64, confidence: f64, p: f64) -> f64 {
    if sample == 0 {
        return 1.0;
    }
    if sample >= population {
        return 0.0;
    }
    let (n, s) = (population as f64, sample as f64);
    (t_value(confidence) * (p * (1.0 - p) / s * (n - s) / (n - 1.0)).sqrt()).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_the_tabled_ones() {
        for (confidence, t) in [
            (0.90, 1.6449),
            (0.95, 1.9600),
            (0.99, 2.5758),
            (0.999, 3.2905),
        ] {
            assert!((t_value(confidence) - t).abs() < 1e-4, "{confidence}");
        }
    }

    #[test]
    fn sample_sizes_follow_the_formula() {
        // The paper's case: a huge population, 1 % at 99 %: about 16,587.
        assert_eq!(sample_size(u64::MAX >> 20, 0.01, 0.99, 0.5), 16_588);
        // 5 % at 95 % of 10,000 faults: 370.
        assert_eq!(sample_size(10_000, 0.05, 0.95, 0.5), 370);
        // Never more than the population.
        assert_eq!(sample_size(100, 0.001, 0.99, 0.5), 100);
        // The margin of that sample is the margin asked for.
        let m = margin(10_000, 370, 0.95, 0.5);
        assert!((m - 0.05).abs() < 0.0005, "{m}");
        assert_eq!(margin(500, 500, 0.99, 0.5), 0.0);
    }
}
