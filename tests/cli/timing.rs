//! The timing commands: `sweep` (every pixel picked, agreeing with the
//! buffer), `bench-threads` and `bench-render`.

use super::*;

#[test]
fn sweep_json_covers_every_pixel_and_buffer_agrees_with_direct() {
    let dir = scratch("sweep");
    let o = run_in(&dir, &["sweep", "--json"]);
    assert_ok(&o, "sweep");
    let lines: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let methods: Vec<&str> = lines
        .iter()
        .map(|j| j["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["buffer", "direct", "ray"]);
    for j in &lines {
        assert_eq!(j["picks"], 129_600, "{j}");
        assert_eq!(j["total"], 129_600, "{j}");
        assert_eq!(
            (j["width"].as_u64(), j["height"].as_u64()),
            (Some(360), Some(360))
        );
        for k in ["setup_ms", "sweep_ms", "picks_per_sec"] {
            assert!(j[k].as_f64().is_some_and(|v| v >= 0.0), "{k}: {j}");
        }
        assert!(j["threads"].as_u64().is_some_and(|t| t >= 1));
        assert!(j["agree"].as_u64().is_some_and(|a| a <= 129_600));
        if j["method"] != "ray" {
            assert_eq!(j["agree"], 129_600, "full agreement: {j}");
        } else {
            // rays differ from the fill rule only within a pixel of triangle edges
            assert!(
                j["agree"]
                    .as_u64()
                    .is_some_and(|a| a >= 129_600 * 995 / 1000),
                "{j}"
            );
        }
    }
    // one method, a custom size (rows not a multiple of the sweep's
    // eight-row tasks), repetitions
    let o = run_in(
        &dir,
        &[
            "sweep", "--json", "--method", "direct", "--size", "64x45", "--reps", "2",
        ],
    );
    assert_ok(&o, "sweep --method direct");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["method"].as_str(), j["picks"].as_u64()),
        (Some("direct"), Some(64 * 45))
    );
    assert_eq!(j["agree"], 64 * 45);
    assert_eq!(j["reps"], 2);
    // --min-time repeats a cheap sweep past --reps; a bad value is an error
    let o = run_in(
        &dir,
        &[
            "sweep",
            "--json",
            "--method",
            "buffer",
            "--size",
            "64x45",
            "--reps",
            "3",
            "--min-time",
            "0.2",
        ],
    );
    assert_ok(&o, "sweep --min-time");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        j["reps"].as_u64().is_some_and(|r| r > 3 && r <= 1000),
        "{j}"
    );
    assert_eq!(j["agree"], 64 * 45);
    for bad in ["--min-time=nan", "--min-time=4000", "--min-time=-1"] {
        let args = ["sweep", "--method", "buffer", bad];
        let o = run_in(&dir, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.contains("--min-time"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench-threads --json`: one object with the threads and rounds asked
/// for and ordered ratios, of computation and of memory traffic; the text
/// form says both; a bad count is a usage error.
#[test]
fn bench_threads_json_reports_the_rounds_asked_for() {
    let dir = scratch("bench_threads");
    let o = run_in(
        &dir,
        &["bench-threads", "--threads", "2", "--rounds", "3", "--json"],
    );
    assert_ok(&o, "bench-threads");
    let j = json(&o);
    assert_eq!(j["threads"], 2);
    assert_eq!(j["rounds"], 3);
    let f = |k: &str| j[k].as_f64().unwrap_or_else(|| panic!("{k}: {j}"));
    assert!(f("one_thread_ms") > 0.0);
    assert!(0.0 < f("ratio_min") && f("ratio_min") <= f("ratio_median"));
    assert!(f("ratio_median") <= f("ratio_max"));
    assert_eq!(f("memory_mib_per_thread"), 64.0);
    assert!(f("memory_one_thread_ms") > 0.0);
    assert!(0.0 < f("memory_ratio_min") && f("memory_ratio_min") <= f("memory_ratio_median"));
    assert!(f("memory_ratio_median") <= f("memory_ratio_max"));
    // the sentences: computation, then memory traffic
    let o = run_in(&dir, &["bench-threads", "--threads", "2", "--rounds", "1"]);
    assert_ok(&o, "bench-threads");
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].contains("pure computation, 1 rounds"), "{out}");
    assert!(
        lines[1].contains("memory traffic (64 MiB written and read back per thread)"),
        "{out}"
    );
    let o = run_in(&dir, &["bench-threads", "--rounds", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench-render --against-one-thread --json`: per pass the N-thread line,
/// then the one-thread line, both marked interleaved and drawing the same
/// pixels; without the flag (or on one thread) one line per pass.
#[test]
fn bench_render_against_one_thread_times_both_counts() {
    let dir = scratch("bench_render");
    let lines = |args: &[&str]| -> Vec<serde_json::Value> {
        let o = run_in(&dir, args);
        assert_ok(&o, "bench-render");
        text(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    };
    let base = ["bench-render", "--size", "64x48", "--frames", "3", "--json"];
    let both = lines(
        &[
            &base[..],
            &["--threads", "2", "--pass", "both", "--against-one-thread"],
        ]
        .concat(),
    );
    let got: Vec<(String, u64, bool)> = both
        .iter()
        .map(|j| {
            let frames = j["frames"].as_u64().unwrap();
            assert!(frames >= 3, "{j}");
            (
                j["pass"].as_str().unwrap().to_string(),
                j["threads"].as_u64().unwrap(),
                j["interleaved"].as_bool().unwrap(),
            )
        })
        .collect();
    let want = [
        ("ids", 2, true),
        ("ids", 1, true),
        ("color", 2, true),
        ("color", 1, true),
    ]
    .map(|(p, t, i)| (p.to_string(), t, i));
    assert_eq!(got, want);
    for pair in both.chunks(2) {
        assert_eq!(pair[0]["covered_px"], pair[1]["covered_px"]);
        assert!(pair[0]["covered_px"].as_u64().unwrap() > 0);
    }
    // each line's stage medians: all measured, none longer than all of
    // its frames together
    for j in &both {
        let f = |k: &str| j[k].as_f64().unwrap_or_else(|| panic!("{k}: {j}"));
        let all = f("mean_ms") * f("frames");
        for stage in ["vertex_ms", "setup_ms", "raster_ms"] {
            assert!(f(stage) > 0.0 && f(stage) <= all, "{stage}: {j}");
        }
    }
    for extra in [
        &["--threads", "2"][..],
        &["--threads", "1", "--against-one-thread"],
    ] {
        let one = lines(&[&base[..], extra, &["--pass", "ids"]].concat());
        assert_eq!(one.len(), 1, "{one:?}");
        assert_eq!(one[0]["interleaved"], false);
    }
    let o = run_in(
        &dir,
        &[
            "bench-render",
            "--size",
            "64x48",
            "--frames",
            "3",
            "--against-one-thread",
            "--threads",
            "2",
        ],
    );
    assert_ok(&o, "bench-render table");
    let table = text(&o.stdout);
    assert!(table.contains("2 threads vs 1"), "{table}");
    assert!(table.contains("median ms of each stage"), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}
