use super::baselines::*;
use super::candidates::{Candidate, Mode};
use super::exact::*;
use super::selection::*;

fn candidate(name: &str, width: usize) -> Candidate {
    Candidate {
        name: name.into(),
        width,
        mode: Mode::Toggle,
        unit: "decode".into(),
        offset: 0,
    }
}

/// Six missed faults; candidate 0 reveals 0-3 (32 bits wide), 1
/// reveals 0-2 and 4 (1 bit), 2 reveals 4 and 5 (1 bit), 3 reveals 4
/// and 5 too but is wider; 4 reveals nothing. Every channel counts
/// throughout, except that candidate 1 reveals fault 4 only on
/// channel 1's window.
fn fixture() -> (Vec<Kernel>, Vec<Candidate>) {
    let all = 0xffff;
    let rows = vec![
        vec![(0, all), (1, all)],
        vec![(0, all), (1, all)],
        vec![(0, all), (1, all)],
        vec![(0, all)],
        vec![(1, 0b10), (2, all), (3, all)],
        vec![(2, all), (3, all)],
        vec![],
    ];
    let kernel = Kernel {
        name: "k".into(),
        faults: 10,
        output: 3,
        missed: rows,
        bit_toggles: vec![5, 9, 1, 9, 100],
        changes: vec![1, 1, 1, 2, 1],
        digests: Vec::new(),
    };
    let candidates = vec![
        candidate("a", 32),
        candidate("b", 1),
        candidate("c", 1),
        candidate("d", 8),
        candidate("e", 1),
    ];
    (vec![kernel], candidates)
}

#[test]
fn greedy_on_a_hand_built_matrix_gives_the_known_answer() {
    let (kernels, candidates) = fixture();
    let picks = greedy(&kernels, &candidates, 3);
    // First the one that reveals 4 (a and b tie on 4 faults with b on
    // channel 1: b is narrower); then c (ties with d: narrower),
    // covering 5; then a adds fault 3.
    assert_eq!(
        picks,
        vec![
            Pick {
                pair: Pair {
                    candidate: 1,
                    channel: 1
                },
                gain: 4
            },
            Pick {
                pair: Pair {
                    candidate: 2,
                    channel: 0
                },
                gain: 1
            },
            Pick {
                pair: Pair {
                    candidate: 0,
                    channel: 2
                },
                gain: 1
            },
        ]
    );
    assert_eq!(
        kernels[0].revealed(&picks.iter().map(|p| p.pair).collect::<Vec<_>>()),
        6
    );
    assert_eq!(kernels[0].revealable(), 6);
    // Nothing left to add: greedy stops.
    assert_eq!(greedy(&kernels, &candidates, 8).len(), 3);
    // Greedy is not optimal: a and c reveal all 6 with 2 picks,
    // greedy's first 2 reveal 5. Branch and bound finds it.
    assert_eq!(
        greedy(&kernels, &candidates, 2)
            .iter()
            .map(|p| p.gain)
            .sum::<u64>(),
        5
    );
    let exact = branch_and_bound(&kernels, &candidates, 2, 100_000);
    assert_eq!((exact.best, exact.proven, exact.upper_bound), (6, true, 6));
    assert_eq!(kernels[0].revealed(&exact.map), 6);
    assert_eq!(branch_and_bound(&kernels, &candidates, 3, 100_000).best, 6);
    // Out of nodes: greedy's map, not proven, a bound above it.
    let cut = branch_and_bound(&kernels, &candidates, 2, 1);
    assert_eq!((cut.best, cut.proven), (5, false));
    assert!(cut.upper_bound >= 6, "{cut:?}");
}

#[test]
fn the_toggle_criterion_ranks_as_toggles_does() {
    let (kernels, candidates) = fixture();
    // 100, then the tie at 9 bit toggles by value changes (d: 2).
    assert_eq!(
        ranked_by_activity(&kernels, &candidates),
        vec![4, 3, 1, 0, 2]
    );
    let map = on_channels(
        &ranked_by_activity(&kernels, &candidates),
        &candidates,
        2,
        1,
    );
    assert_eq!(
        map[1],
        Pair {
            candidate: 3,
            channel: 1
        }
    );
    assert_eq!(kernels[0].revealed(&map), 2);
    let random = random_maps(&candidates, 2, 1, 10, 1);
    assert_eq!(random.len(), 10);
    assert!(random
        .iter()
        .all(|m| m.len() == 2 && m[0].candidate != m[1].candidate));
    assert_eq!(random, random_maps(&candidates, 2, 1, 10, 1));
    assert_eq!(curve(&kernels, &map), vec![0, 2]);
}

/// A library user's comparison: the greedy choice and branch and bound's
/// on the training kernels, every method counted on the test kernels.
#[test]
fn a_comparison_counts_every_method_on_the_test_kernels() {
    use super::comparison::{compare, Settings, DRAWS};
    let (kernels, candidates) = fixture();
    let settings = Settings {
        counters: 2,
        selectors: 1,
        exact_nodes: 100_000,
        seed: 3,
    };
    let c = compare(&kernels, &kernels, &candidates, &settings);
    let names: Vec<&str> = c.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "selected (greedy)",
            "today's MONITOR_MAP",
            "toggle criterion (thesis)",
            &format!("random (mean of {DRAWS})"),
        ]
    );
    // Greedy's two picks reveal 5; branch and bound proves 6.
    assert_eq!(c.methods[0].revealed, [5.0]);
    assert_eq!(c.methods[0].curve, [4.0, 5.0]);
    assert_eq!(
        c.selected,
        c.picks.iter().map(|p| p.pair).collect::<Vec<_>>()
    );
    let exact = c.exact.as_ref().unwrap();
    assert_eq!((exact.best, exact.proven), (6, true));
    // Every method counted with its own map; the random mean within its
    // draws' least and most, over as many draws as it says.
    for m in &c.methods[..3] {
        let map = m.map.as_ref().unwrap();
        assert_eq!(m.revealed, [kernels[0].revealed(map) as f64], "{}", m.name);
    }
    assert_eq!(c.randoms.len(), DRAWS);
    let random = &c.methods[3];
    let (sd, min, max) = random.spread.unwrap();
    assert!(sd >= 0.0 && min <= random.revealed[0] && random.revealed[0] <= max);
    // With selectors, no branch and bound.
    let s2 = Settings {
        selectors: 2,
        ..settings
    };
    let c2 = compare(&kernels, &kernels, &candidates, &s2);
    assert!(c2.exact.is_none());
    assert_eq!(c2.methods[0].curve.len(), 4);
}
