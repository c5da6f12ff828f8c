//! The original pick test's experiment on the built-in scene at 360×360.

use softpick::{analyze_rules, builtin_scene, Camera, FillRule};

#[test]
fn pick_test_experiment_on_builtin_scene() {
    let scene = builtin_scene();
    assert_eq!(scene.triangle_count(), 362);
    assert!(scene.meshes().len() >= 20);
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let reports = analyze_rules(&scene, &cam).unwrap();
    for r in &reports {
        println!(
            "{:>10}: covered {:>6} gaps {:>4} double {:>4} false claims {:>4}",
            r.rule.name(),
            r.covered,
            r.gaps,
            r.double,
            r.false_claims
        );
    }
    let get = |rule| reports.iter().find(|r| r.rule == rule).unwrap();
    let (strict, incl, guard, tl) = (
        get(FillRule::Strict),
        get(FillRule::Inclusive),
        get(FillRule::AreaGuard),
        get(FillRule::TopLeft),
    );
    assert!(strict.gaps > 0, "strict must leave gaps on shared edges");
    assert_eq!(strict.false_claims, 0);
    assert_eq!(strict.double, 0);
    assert!(
        incl.false_claims > 0,
        "inclusive must let zero-area triangles claim lines"
    );
    assert_eq!(incl.gaps, 0);
    assert!(incl.double > 0);
    assert_eq!((guard.gaps, guard.false_claims), (0, 0));
    assert!(
        guard.double > 0,
        "area-guard still covers shared edges twice"
    );
    assert_eq!((tl.gaps, tl.false_claims, tl.double), (0, 0, 0));
    // AreaGuard and TopLeft cover the same silhouette
    assert_eq!(guard.covered, tl.covered);
    assert_eq!(strict.covered + strict.gaps, tl.covered);
}
