//! The validation procedure's second step: how a count grows with the
//! loop count, as a least-squares line.

use std::fmt;

/// `slope * N + intercept`.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
}

impl Line {
    /// The least-squares line through `(x, y)` points; with one distinct
    /// `x`, a flat line through the mean.
    pub fn fit(points: &[(f64, f64)]) -> Line {
        let n = points.len().max(1) as f64;
        let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
        let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
        let slope = if sxx == 0.0 { 0.0 } else { sxy / sxx };
        // Rounded past the noise of the sums, so equal lines compare equal.
        let clean = |v: f64| (v * 1e9).round() / 1e9;
        Line {
            slope: clean(slope),
            intercept: clean(mean_y - slope * mean_x),
        }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.intercept < 0.0 { '-' } else { '+' };
        write!(
            f,
            "{}·N {sign} {}",
            round(self.slope),
            round(self.intercept.abs())
        )
    }
}

/// Two decimals at most, none for whole numbers.
pub fn round(value: f64) -> String {
    let rounded = (value * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// What the measured line says about the expected one, in the paper's
/// terms: an extra count per iteration (slope) or a constant (intercept).
pub fn diagnose(expected: Line, measured: Line) -> String {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    let slope = !close(expected.slope, measured.slope);
    let intercept = !close(expected.intercept, measured.intercept);
    let signed = |d: f64| {
        let text = round(d);
        if d > 0.0 {
            format!("+{text}")
        } else {
            text
        }
    };
    match (slope, intercept) {
        (false, false) => "counts as expected on the fitted line, off at some points".into(),
        (true, false) => format!(
            "counts {} per iteration",
            signed(measured.slope - expected.slope)
        ),
        (false, true) => format!(
            "counts a constant {}",
            signed(measured.intercept - expected.intercept)
        ),
        (true, true) => format!(
            "counts {} per iteration and a constant {}",
            signed(measured.slope - expected.slope),
            signed(measured.intercept - expected.intercept)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_and_diagnoses() {
        let expected = Line::fit(&[(0.0, 3.0), (1.0, 7.0), (5.0, 23.0)]);
        assert_eq!(
            expected,
            Line {
                slope: 4.0,
                intercept: 3.0
            }
        );
        assert_eq!(expected.to_string(), "4·N + 3");
        let extra = Line::fit(&[(0.0, 3.0), (1.0, 8.0), (5.0, 28.0)]);
        assert_eq!(diagnose(expected, extra), "counts +1 per iteration");
        let constant = Line::fit(&[(0.0, 2.0), (1.0, 6.0), (5.0, 22.0)]);
        assert_eq!(diagnose(expected, constant), "counts a constant -1");
        assert_eq!(
            Line::fit(&[(2.0, 5.0)]),
            Line {
                slope: 0.0,
                intercept: 5.0
            }
        );
        assert_eq!(
            Line {
                slope: 0.5,
                intercept: -1.25
            }
            .to_string(),
            "0.5·N - 1.25"
        );
    }
}
