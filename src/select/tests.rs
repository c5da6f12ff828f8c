//! Unit tests of the lasso spans and the exact overlap tests.

use super::lasso::{inside_even_odd, Lasso};
use super::overlap::{segment_meets_open_tri, tri_overlaps_box};
use crate::raster::rules::snapped_area;
use crate::test_util::Rng;

#[test]
fn lasso_spans_equal_pointwise_even_odd() {
    let mut rng = Rng(7);
    let (w, h) = (37u32, 23u32);
    for case in 0..300 {
        let n = 3 + (rng.next_u64() % 9) as usize;
        let poly: Vec<[f32; 2]> = (0..n)
            .map(|_| {
                if case % 3 == 0 {
                    // half-integer and integer coordinates: centres on edges
                    let q = |r: &mut Rng, m: u32| {
                        (r.next_u64() % (2 * m as u64 + 8)) as f32 * 0.5 - 2.0
                    };
                    [q(&mut rng, w), q(&mut rng, h)]
                } else {
                    [
                        rng.range(-5.0, w as f32 + 5.0),
                        rng.range(-5.0, h as f32 + 5.0),
                    ]
                }
            })
            .collect();
        let l = Lasso::new(&poly, w, h).unwrap();
        for j in 0..h as i32 {
            for i in 0..w as i32 {
                let want = inside_even_odd(i128::from(i) * 256, i128::from(j) * 256, &l.verts, 1);
                let got = l.row(j).iter().any(|s| s.1 <= i && i <= s.2);
                assert_eq!(got, want, "case {case} pixel ({i},{j}) poly {poly:?}");
            }
        }
    }
}

#[test]
fn boundary_rule_left_top_in_right_bottom_out() {
    // square with corners on pixel centres 2.5 .. 6.5
    let sq = [[2.5, 2.5], [6.5, 2.5], [6.5, 6.5], [2.5, 6.5]];
    let l = Lasso::new(&sq, 10, 10).unwrap();
    for j in 0..10 {
        for i in 0..10 {
            let got = l.row(j).iter().any(|s| s.1 <= i && i <= s.2);
            assert_eq!(got, (2..6).contains(&i) && (2..6).contains(&j), "({i},{j})");
        }
    }
    // the same square traversed the other way round
    let rev: Vec<_> = sq.iter().rev().copied().collect();
    let l2 = Lasso::new(&rev, 10, 10).unwrap();
    assert_eq!(l.spans, l2.spans);
}

#[test]
fn box_overlap_is_positive_area() {
    let t = [[0, 0], [256, 0], [0, 256]];
    let oriented = if snapped_area(t) > 0 {
        t
    } else {
        [t[0], t[2], t[1]]
    };
    assert!(tri_overlaps_box(&oriented, [100, 100, 500, 500]));
    // touching the hypotenuse's corner region only
    assert!(!tri_overlaps_box(&oriented, [128, 128, 500, 500]));
    assert!(!tri_overlaps_box(&oriented, [256, 0, 500, 500]));
    assert!(!tri_overlaps_box(&oriented, [-100, -100, 0, 0]));
    assert!(tri_overlaps_box(&oriented, [-100, -100, 1, 1]));
}

#[test]
fn segment_against_open_triangle() {
    let t = [[0, 0], [0, 300], [300, 0]];
    let t = if snapped_area(t) > 0 {
        t
    } else {
        [t[0], t[2], t[1]]
    };
    assert!(segment_meets_open_tri([-10, 10], [10, 10], &t));
    assert!(!segment_meets_open_tri([-10, 0], [400, 0], &t)); // along an edge
    assert!(!segment_meets_open_tri([150, 150], [400, -100], &t)); // on the hypotenuse
    assert!(segment_meets_open_tri([10, 10], [20, 20], &t)); // inside
    assert!(!segment_meets_open_tri([-10, -10], [-20, 400], &t));
}
