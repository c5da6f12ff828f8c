//! Ray casts on a scene without rendering it: the ground height under a
//! character (terrain following), line of sight between two points, and
//! the first surface along a ray (what blocks the view, and where).
//!
//! `cargo run --release --example ground_and_sight`

use glam::Vec3;
use softpick::collision::{ground_height, line_of_sight};
use softpick::{builtin_scene, Ray, RayCaster, RayOptions};

fn main() {
    // The built-in scene: a 3×3 floor at y = 0 with crates, pillars, a ramp
    // and a sphere on it.
    let scene = builtin_scene();

    // Ground height: the first surface straight below (x, z), cast from
    // above the whole scene. A character walking along z = 0.1 steps up
    // onto whatever is in its way.
    println!("walking along z = 0.1:");
    let mut last: Option<f32> = None;
    for i in 0..=28 {
        let x = -1.4 + 0.1 * i as f32;
        let y = ground_height(&scene, x, 0.1).expect("the floor is everywhere below");
        // (a hit is exact to float rounding: the floor reads 0 within 1e-6)
        assert!((-1e-4..=3.0).contains(&y), "within the scene: {y}");
        if last.is_none_or(|l| (y - l).abs() > 1e-3) {
            println!("  x = {x:+.1}: ground at y = {:.3}", y.max(0.0));
            last = Some(y);
        }
    }
    // open floor, and nothing at all beyond the floor's edge
    let open = ground_height(&scene, 1.4, 1.4).expect("the floor");
    assert!(open.abs() < 1e-4, "{open}");
    assert_eq!(ground_height(&scene, 5.0, 0.0), None);

    // What is underfoot: the same downward ray, as a full hit record, from
    // a caster (one per state of the scene, for as many rays as you like).
    let caster = RayCaster::new(&scene);
    let feet = Vec3::new(0.8, 2.0, 0.2);
    let down = caster
        .first(&Ray::new(feet, Vec3::NEG_Y), &RayOptions::default())
        .expect("something below");
    println!(
        "below {feet}: {} at y = {:.3}",
        down.mesh_name, down.position.y
    );
    assert_eq!(Some(down.position.y), ground_height(&scene, feet.x, feet.z));

    // Line of sight: is the segment between two points free of surfaces
    // (a guard seeing the player, a camera not inside a wall)?
    let guard = Vec3::new(0.0, 0.2, 1.4);
    let player_in_open = Vec3::new(1.4, 0.2, 1.4);
    let player_behind_ramp = Vec3::new(0.0, 0.2, -1.4);
    let clear = line_of_sight(&scene, guard, player_in_open);
    let blocked = !line_of_sight(&scene, guard, player_behind_ramp);
    println!(
        "guard sees the player in the open: {clear}; behind the ramp: {}",
        !blocked
    );
    assert!(clear && blocked);

    // The first surface along the blocked sight line: which mesh, how far.
    let to_player = player_behind_ramp - guard;
    let hit = caster
        .first(
            &Ray::new(guard, to_player.normalize()),
            &RayOptions::default(),
        )
        .expect("the view is blocked");
    println!(
        "blocked by {} at {:.3}, {:.3} from the guard (the player is {:.3} away)",
        hit.mesh_name,
        hit.position,
        hit.distance,
        to_player.length()
    );
    assert!(hit.distance < to_player.length());
}
