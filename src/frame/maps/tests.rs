//! `Frame::pixel_maps` against a straightforward reference: every pixel
//! on its own, its ray from `PixelRays::ray`, its triangle set up from
//! scratch, the arithmetic written out once more. The maps must be the
//! same bits on every camera kind and on 1 and 2 threads.

use glam::{DVec3, Mat4, Quat, Vec3};

use super::hit::{gather, hits4, PixelHit, TriSetup};
use super::{MapRequest, PixelMaps, PixelRays};
use crate::camera::{Camera, Projection};
use crate::cpu::{Isa, Kernel, Lanes8};
use crate::frame::Frame;
use crate::raster::tile::NO_TRIANGLE;
use crate::scene::{Mesh, Scene, Transform};
use crate::{builtin_scene, RenderOptions, Renderer};

/// Every map of `frame`, one pixel at a time.
fn reference(frame: &Frame, scene: &Scene) -> PixelMaps {
    let cam = frame.camera.expect("a rendered frame");
    let rays = PixelRays::new(&cam);
    let (w, h) = (frame.width, frame.height);
    let n = (w * h) as usize;
    let mut mesh = vec![PixelMaps::NO_MESH; n];
    let mut bary = vec![0.0; 3 * n];
    let mut normal = vec![0.0; 3 * n];
    let mut distance = vec![f32::INFINITY; n];
    let mut z = vec![f32::INFINITY; n];
    for y in 0..h {
        for x in 0..w {
            let k = (y * w + x) as usize;
            let id = frame.ids[k];
            if id == NO_TRIANGLE {
                continue;
            }
            let (m, local) = scene.locate(id - 1).expect("a triangle of the scene");
            let world = frame
                .worlds
                .get(m as usize)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            let corners = scene.mesh(m).unwrap().triangle(local);
            let p = if world == Mat4::IDENTITY {
                corners.map(|q| q.as_dvec3())
            } else {
                corners.map(|q| world.transform_point3(q).as_dvec3())
            };
            let (e0, e1) = (p[1] - p[0], p[2] - p[0]);
            let nrm = e0.cross(e1);
            let (o, d) = rays.ray(x, y);
            let denom = nrm.dot(d);
            let s = if denom != 0.0 {
                nrm.dot(p[0] - o) / denom
            } else {
                let q = cam
                    .unproject_with(
                        &frame.inv_view_proj,
                        x as f32 + 0.5,
                        y as f32 + 0.5,
                        frame.depth[k],
                    )
                    .as_dvec3();
                (q - o).dot(rays.forward)
            };
            let (a, b, c) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
            let den = a * c - b * b;
            let dq = o + d * s - p[0];
            let (d0, d1) = (dq.dot(e0), dq.dot(e1));
            let weights = if den == 0.0 {
                [1.0, 0.0, 0.0]
            } else {
                let v = (c * d0 - b * d1) / den;
                let w = (a * d1 - b * d0) / den;
                [(1.0 - v - w) as f32, v as f32, w as f32]
            };
            mesh[k] = m;
            bary[3 * k..3 * k + 3].copy_from_slice(&weights);
            normal[3 * k..3 * k + 3].copy_from_slice(&nrm.normalize_or_zero().as_vec3().to_array());
            distance[k] = if rays.perspective {
                (s * d.length()) as f32
            } else {
                s as f32
            };
            z[k] = s as f32;
        }
    }
    PixelMaps {
        mesh: Some(mesh),
        barycentric: Some(bary),
        normal: Some(normal),
        distance: Some(distance),
        z: Some(z),
    }
}

/// The bits of a map's values, for an exact comparison (NaN included).
fn bits(v: &Option<Vec<f32>>) -> Vec<u32> {
    v.as_deref()
        .unwrap_or_default()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// A sphere, a box of two meshes placed by rotations and translations
/// (so `tri_setup` takes the world product), and the built-in scene.
fn scenes() -> Vec<(&'static str, Scene)> {
    let mut placed = Scene::new();
    let (pos, tris) = softpick_testkit::uv_sphere(40, 30);
    let sphere = Mesh::new("sphere", pos, tris, [200, 200, 200]).unwrap();
    placed.add_mesh(sphere.clone(), Transform::IDENTITY, None);
    placed.add_mesh(
        sphere,
        Transform {
            translation: Vec3::new(0.9, 0.3, -0.4),
            rotation: Quat::from_axis_angle(Vec3::new(0.3, 1.0, 0.2).normalize(), 0.7),
            scale: Vec3::new(0.6, 0.8, 0.5),
        },
        None,
    );
    let mut big = Scene::new();
    let (pos, tris) = softpick_testkit::uv_sphere(160, 120);
    big.add_mesh(
        Mesh::new("big", pos, tris, [200, 200, 200]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    vec![
        ("builtin", builtin_scene()),
        ("placed spheres", placed),
        ("38k sphere", big),
    ]
}

/// The scene's automatic camera in perspective, orthographic and as a
/// skewed, off-centre pinhole.
fn cameras(scene: &Scene) -> Vec<Camera> {
    let auto = Camera::auto_frame(&scene.framing_bounds(), 97, 61);
    let ortho = Camera {
        projection: Projection::Orthographic {
            height: 2.0 * (auto.eye - auto.target).length() * 0.4,
        },
        ..auto
    };
    let pinhole = Camera {
        projection: Projection::Pinhole {
            fx: 70.0,
            fy: 66.0,
            cx: 50.3,
            cy: 28.9,
            skew: 3.5,
        },
        ..auto
    };
    vec![auto, ortho, pinhole]
}

#[test]
fn maps_are_the_reference_bits_on_every_camera_and_thread_count() {
    let pools: Vec<_> = [1, 2]
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .into();
    // the CPU's best instruction set (through `Picks::maps`: AVX2's four
    // lanes on CI's machines) and the baseline's one pixel at a time
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        matches!(Isa::detect(), Isa::Avx2(_)),
        crate::cpu::has_avx2(),
        "Isa::detect"
    );
    let isas = [None, Some(Isa::Base)];
    for (name, scene) in scenes() {
        for cam in cameras(&scene) {
            let frame = Renderer::new(RenderOptions::default())
                .unwrap()
                .render(&scene, &cam)
                .unwrap()
                .clone();
            let covered = frame.ids.iter().filter(|&&i| i != NO_TRIANGLE).count();
            assert!(
                covered > 500,
                "{name} {:?}: {covered} pixels covered",
                cam.projection
            );
            let want = reference(&frame, &scene);
            let picks = frame.picks(&scene).unwrap();
            for (pool, isa) in pools.iter().flat_map(|p| isas.iter().map(move |i| (p, *i))) {
                let threads = pool.current_num_threads();
                let maps = |r: MapRequest| match isa {
                    // (`Picks::maps` is the CPU's best instruction set)
                    Some(isa) => pool.install(|| frame.pixel_maps_on(&scene, r, isa)),
                    None => pool.install(|| picks.maps(r)),
                };
                let all = maps(MapRequest {
                    mesh: true,
                    barycentric: true,
                    normal: true,
                    distance: true,
                    z: true,
                });
                let case = format!("{name}, {:?}, {threads} threads, {isa:?}", cam.projection);
                assert_eq!(all.mesh, want.mesh, "mesh ids, {case}");
                assert_eq!(
                    bits(&all.barycentric),
                    bits(&want.barycentric),
                    "barycentrics, {case}"
                );
                assert_eq!(bits(&all.normal), bits(&want.normal), "normals, {case}");
                assert_eq!(
                    bits(&all.distance),
                    bits(&want.distance),
                    "distance, {case}"
                );
                assert_eq!(bits(&all.z), bits(&want.z), "z, {case}");
                // one map at a time, as the Python package asks for them
                let one = |f: fn(&mut MapRequest)| {
                    let mut r = MapRequest::default();
                    f(&mut r);
                    maps(r)
                };
                assert_eq!(
                    one(|r| r.mesh = true).mesh,
                    want.mesh,
                    "mesh ids alone, {case}"
                );
                let b = one(|r| r.barycentric = true);
                assert_eq!(
                    bits(&b.barycentric),
                    bits(&want.barycentric),
                    "barycentrics alone, {case}"
                );
                assert!(b.mesh.is_none() && b.normal.is_none() && b.z.is_none());
                let nm = one(|r| r.normal = true);
                assert_eq!(
                    bits(&nm.normal),
                    bits(&want.normal),
                    "normals alone, {case}"
                );
                let d = one(|r| r.distance = true);
                assert_eq!(
                    bits(&d.distance),
                    bits(&want.distance),
                    "distance alone, {case}"
                );
                let zz = one(|r| r.z = true);
                assert_eq!(bits(&zz.z), bits(&want.z), "z alone, {case}");
            }
        }
    }
}

/// The reference itself on a hand-checked pixel: the centre pixel of an
/// axis-aligned triangle seen head-on has the barycentrics of the centre
/// ray's point, and its z is the eye's distance to the triangle's plane.
#[test]
fn reference_barycentrics_of_a_head_on_triangle() {
    let mut scene = Scene::new();
    let tri = Mesh::new(
        "t",
        vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(2.0, -1.0, 0.0),
            Vec3::new(-1.0, 2.0, 0.0),
        ],
        vec![[0, 1, 2]],
        [255, 255, 255],
    )
    .unwrap();
    scene.add_mesh(tri, Transform::IDENTITY, None);
    let cam = Camera {
        eye: Vec3::new(0.0, 0.0, 4.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 60.0 },
        near: 0.1,
        far: 10.0,
        width: 65,
        height: 65,
    };
    let frame = Renderer::new(RenderOptions::default())
        .unwrap()
        .render(&scene, &cam)
        .unwrap()
        .clone();
    let r = reference(&frame, &scene);
    // pixel (32, 32)'s centre ray is the view axis: the point (0, 0, 0),
    // the triangle's centroid, weights 1/3 of each corner
    let k = 32 * 65 + 32;
    let b = &r.barycentric.as_ref().unwrap()[3 * k..3 * k + 3];
    let expect = [1.0 / 3.0; 3];
    for (got, want) in b.iter().zip(expect) {
        assert!((got - want).abs() < 1e-6, "{b:?}");
    }
    assert!((r.z.as_ref().unwrap()[k] - 4.0).abs() < 1e-6);
}

/// [`hits4`] in the AVX2 build (through [`Isa::run`]).
struct Hits4<'a> {
    t: [&'a TriSetup; 4],
    perspective: bool,
    o: [DVec3; 4],
    d: [DVec3; 4],
    want: MapRequest,
}

impl Kernel for Hits4<'_> {
    type Out = ([PixelHit; 4], u32);
    #[inline(always)]
    fn run<L: Lanes8>(self, _lanes: L) -> Self::Out {
        hits4(
            self.t,
            self.perspective,
            &gather(self.o),
            &gather(self.d),
            self.want,
        )
    }
}

/// The four lanes of `hits4` are `pixel_hit`'s bits, lane by lane, on
/// seeded triangles and rays (degenerate triangles and rays in their
/// plane included), in the portable build and the CPU's best one.
#[test]
fn four_lanes_are_one_pixel_s_bits() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 40, 30);
    let frame = Renderer::new(RenderOptions::default())
        .unwrap()
        .render(&scene, &cam)
        .unwrap()
        .clone();
    let mut state = 0x6d61_7073_0000_0042_u64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    };
    let mut vec3 = || DVec3::new(rnd(), rnd(), rnd());
    let rays = [true, false].map(|p| {
        PixelRays::new(&Camera {
            projection: if p {
                cam.projection
            } else {
                Projection::Orthographic { height: 3.0 }
            },
            ..cam
        })
    });
    let (mut lanes, mut edge_on) = (0, 0);
    for round in 0..400 {
        let setups: Vec<TriSetup> = (0..4)
            .map(|i| {
                let p0 = vec3();
                let e0 = vec3();
                // every fifth triangle degenerate (den = 0)
                let e1 = if (round + i) % 5 == 0 {
                    e0 * 2.0
                } else {
                    vec3()
                };
                let n = e0.cross(e1);
                let (a, b, c) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
                TriSetup {
                    mesh: 0,
                    p0,
                    e0,
                    e1,
                    n,
                    abc: (a, b, c),
                    den: a * c - b * b,
                    normal: [0.0; 3],
                    num_eye: n.dot(p0 - rays[0].eye),
                }
            })
            .collect();
        let t: [&TriSetup; 4] = std::array::from_fn(|i| &setups[i]);
        let r = &rays[round % 2];
        let o: [DVec3; 4] = std::array::from_fn(|_| if r.perspective { r.eye } else { vec3() });
        let d: [DVec3; 4] = std::array::from_fn(|i| {
            if (round + i) % 7 == 0 {
                // a ray in the triangle's plane: n · d = 0 exactly
                let n = t[i].n;
                DVec3::new(n.y, -n.x, 0.0)
            } else {
                vec3()
            }
        });
        let want = MapRequest {
            mesh: false,
            barycentric: round % 3 != 2,
            normal: false,
            distance: round % 4 != 3,
            z: true,
        };
        let portable = hits4(t, r.perspective, &gather(o), &gather(d), want);
        let best = Isa::detect().run(Hits4 {
            t,
            perspective: r.perspective,
            o,
            d,
            want,
        });
        let bits = |h: &PixelHit| {
            (
                h.bary.map(f32::to_bits),
                h.distance.to_bits(),
                h.z.to_bits(),
            )
        };
        for (hits, mask) in [portable, best] {
            for i in 0..4 {
                let denom = t[i].n.dot(d[i]);
                assert_eq!(mask >> i & 1 != 0, denom != 0.0, "round {round} lane {i}");
                if denom == 0.0 {
                    edge_on += 1;
                    continue;
                }
                let one = frame
                    .pixel_hit(t[i], r, (o[i], d[i]), (3, 4), want)
                    .unwrap();
                assert_eq!(bits(&hits[i]), bits(&one), "round {round} lane {i}");
                lanes += 1;
            }
        }
    }
    assert!(
        lanes > 2000 && edge_on > 200,
        "{lanes} lanes, {edge_on} edge-on"
    );
}
