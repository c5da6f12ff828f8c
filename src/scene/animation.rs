//! Animations: keyframe channels that drive node transforms and morph
//! weights, sampled at a time as the glTF 2.0 spec defines it (STEP,
//! LINEAR with spherical interpolation for rotations, CUBICSPLINE with
//! Hermite tangents); times outside a channel's keys clamp to its first or
//! last. A [`LoopMode`] says what a time past the clip's end means: the
//! clamp (`Once`), a wrap (`Repeat`) or a mirror (`PingPong`).

use glam::{Quat, Vec3};

use super::NodeId;

/// How a channel interpolates between keyframes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The value of the last key at or before the time.
    Step,
    /// Linear between the two keys around the time (rotations: slerp).
    Linear,
    /// Cubic Hermite spline; each key holds an in-tangent, a value and an
    /// out-tangent.
    CubicSpline,
}

/// What a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelPath {
    /// The node's translation (3 values per key).
    Translation,
    /// The node's rotation, a quaternion x, y, z, w (4 values per key).
    Rotation,
    /// The node's scale (3 values per key).
    Scale,
    /// The morph target weights of the node's mesh (one per target).
    Weights,
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The node it drives.
    pub node: NodeId,
    /// Which property.
    pub path: ChannelPath,
    /// How keys are interpolated.
    pub interpolation: Interpolation,
    /// Key times in seconds, increasing.
    pub times: Vec<f32>,
    /// Key values, `width` per key (three times that for cubic splines:
    /// in-tangent, value, out-tangent).
    pub values: Vec<f32>,
    /// Values per key: 3, 4, or the number of morph targets.
    pub width: usize,
}

/// What a time outside a clip means ([`Scene::pose`](crate::Scene::pose)).
///
/// A clip runs from 0 to its [`Animation::duration`] `d` (the last key of
/// any channel), as three.js's and Babylon's clips do. `Once` samples the
/// channels at the time itself, so times before a channel's first key and
/// after its last clamp to those keys (glTF's sampler); `Repeat` samples
/// them at `t mod d` (in `[0, d)`, negative times too); `PingPong` at `t`
/// mirrored into `[0, d]`: forth over `[0, d]`, back over `[d, 2d]`, and
/// again (Cesium's `MIRRORED_REPEAT`). A clip of duration 0 is sampled at 0
/// by `Repeat` and `PingPong`.
///
/// ```
/// use softpick::animation::LoopMode;
///
/// assert_eq!(LoopMode::Once.clip_time(2.5, 2.0), 2.5);
/// assert_eq!(LoopMode::Repeat.clip_time(2.5, 2.0), 0.5);
/// assert_eq!(LoopMode::PingPong.clip_time(2.5, 2.0), 1.5);
/// assert_eq!(LoopMode::from_name("pingpong"), Some(LoopMode::PingPong));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LoopMode {
    /// Play once: past the keys, the first or last key holds (glTF's clamp).
    #[default]
    Once,
    /// Wrap around: the clip starts again at its end.
    Repeat,
    /// Mirror: the clip plays backwards from its end, then forwards again.
    PingPong,
}

impl LoopMode {
    /// Every mode, in the order of the docs.
    pub const ALL: [LoopMode; 3] = [LoopMode::Once, LoopMode::Repeat, LoopMode::PingPong];

    /// The mode's name on the command line and in Python: `"once"`,
    /// `"repeat"`, `"pingpong"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            LoopMode::Once => "once",
            LoopMode::Repeat => "repeat",
            LoopMode::PingPong => "pingpong",
        }
    }

    /// The mode a name ([`LoopMode::name`]) names.
    #[must_use]
    pub fn from_name(name: &str) -> Option<LoopMode> {
        LoopMode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The time at which a clip of `duration` seconds samples its channels
    /// for `time` (see [`LoopMode`]). NaN stays NaN (the channels sample
    /// their first key).
    #[must_use]
    pub fn clip_time(self, time: f32, duration: f32) -> f32 {
        let d = duration;
        match self {
            LoopMode::Once => time,
            _ if !(d > 0.0) || !d.is_finite() => 0.0,
            LoopMode::Repeat => time.rem_euclid(d),
            LoopMode::PingPong => {
                let u = time.rem_euclid(2.0 * d);
                if u <= d {
                    u
                } else {
                    2.0 * d - u
                }
            }
        }
    }
}

/// A named set of channels played together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    /// The animation's name (else `animation<index>`).
    pub name: String,
    /// Its channels.
    pub channels: Vec<Channel>,
}

impl Animation {
    /// The time of the last key of any channel (0 without keys).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0, f32::max)
    }
}

impl Channel {
    /// Checks that the channel can be sampled: increasing finite times,
    /// `width × keys` values (× 3 for cubic splines), finite values
    /// ([`Scene::add_animation`](crate::Scene::add_animation) checks every
    /// channel so).
    pub(crate) fn check(&self) -> Result<(), String> {
        let keys = self.times.len();
        if keys == 0 {
            return Err("a channel has no keys".into());
        }
        if self.times.windows(2).any(|w| !(w[0] < w[1]))
            || !self.times.iter().all(|t| t.is_finite())
        {
            return Err("key times must be finite and increasing".into());
        }
        let per_key = self.width
            * if self.interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
        let want = match self.path {
            ChannelPath::Translation | ChannelPath::Scale => 3,
            ChannelPath::Rotation => 4,
            ChannelPath::Weights => self.width,
        };
        if self.width != want || self.width == 0 {
            return Err(format!(
                "{} values per key where {want} are needed",
                self.width
            ));
        }
        if self.values.len() != per_key * keys {
            return Err(format!(
                "{} values for {keys} keys of {per_key}",
                self.values.len()
            ));
        }
        if !self.values.iter().all(|v| v.is_finite()) {
            return Err("key values must be finite".into());
        }
        Ok(())
    }

    /// The channel's value at time `t` (clamped to the keys) into `out`
    /// (`width` values; a rotation comes out normalized).
    pub(crate) fn sample(&self, t: f32, out: &mut [f32]) {
        let w = self.width;
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        // the value of key k (the middle third for cubic splines)
        let value = |k: usize| -> &[f32] {
            let at = if cubic { (3 * k + 1) * w } else { k * w };
            &self.values[at..at + w]
        };
        let t = if t.is_nan() { self.times[0] } else { t };
        // k: the last key at or before t
        let k = self.times.partition_point(|&x| x <= t);
        if k == 0 || n == 1 {
            out.copy_from_slice(value(0));
            return self.finish(out);
        }
        if k >= n {
            out.copy_from_slice(value(n - 1));
            return self.finish(out);
        }
        let k = k - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let s = (t - t0) / (t1 - t0);
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(value(k)),
            Interpolation::Linear if self.path == ChannelPath::Rotation => {
                let q0 = Quat::from_slice(value(k));
                let q1 = Quat::from_slice(value(k + 1));
                out.copy_from_slice(&q0.slerp(q1, s).to_array());
            }
            Interpolation::Linear => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = value(k)[i] * (1.0 - s) + value(k + 1)[i] * s;
                }
            }
            Interpolation::CubicSpline => {
                let td = t1 - t0;
                let (s2, s3) = (s * s, s * s * s);
                let out_tangent = &self.values[(3 * k + 2) * w..][..w];
                let in_tangent = &self.values[(3 * (k + 1)) * w..][..w];
                for (i, o) in out.iter_mut().enumerate() {
                    *o = (2.0 * s3 - 3.0 * s2 + 1.0) * value(k)[i]
                        + (s3 - 2.0 * s2 + s) * td * out_tangent[i]
                        + (-2.0 * s3 + 3.0 * s2) * value(k + 1)[i]
                        + (s3 - s2) * td * in_tangent[i];
                }
            }
        }
        self.finish(out);
    }

    fn finish(&self, out: &mut [f32]) {
        if self.path == ChannelPath::Rotation {
            let q = Quat::from_slice(out).normalize();
            if q.is_finite() {
                out.copy_from_slice(&q.to_array());
            } else {
                out.copy_from_slice(&Quat::IDENTITY.to_array());
            }
        }
    }

    /// The sampled value as a vector (translation, scale).
    pub(crate) fn vec3_at(&self, t: f32) -> Vec3 {
        let mut v = [0.0; 3];
        self.sample(t, &mut v);
        Vec3::from_array(v)
    }

    /// The sampled value as a rotation.
    pub(crate) fn quat_at(&self, t: f32) -> Quat {
        let mut v = [0.0; 4];
        self.sample(t, &mut v);
        Quat::from_array(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(
        path: ChannelPath,
        interpolation: Interpolation,
        times: &[f32],
        values: &[f32],
        width: usize,
    ) -> Channel {
        let c = Channel {
            node: 0,
            path,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
            width,
        };
        c.check().unwrap();
        c
    }

    #[test]
    fn step_linear_and_clamping() {
        let v = [0.0, 0.0, 0.0, 2.0, 4.0, 6.0];
        let lin = channel(
            ChannelPath::Translation,
            Interpolation::Linear,
            &[1.0, 3.0],
            &v,
            3,
        );
        assert_eq!(lin.vec3_at(2.0), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(lin.vec3_at(-5.0), Vec3::ZERO, "before the first key");
        assert_eq!(lin.vec3_at(9.0), Vec3::new(2.0, 4.0, 6.0), "after the last");
        let step = channel(
            ChannelPath::Translation,
            Interpolation::Step,
            &[1.0, 3.0],
            &v,
            3,
        );
        assert_eq!(step.vec3_at(2.9), Vec3::ZERO);
        assert_eq!(step.vec3_at(3.0), Vec3::new(2.0, 4.0, 6.0));
    }

    #[test]
    fn rotations_slerp_and_stay_unit() {
        let q1 = Quat::from_rotation_y(1.2);
        let mut v = Quat::IDENTITY.to_array().to_vec();
        v.extend(q1.to_array());
        let c = channel(
            ChannelPath::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &v,
            4,
        );
        let q = c.quat_at(0.25);
        assert!(q.abs_diff_eq(Quat::from_rotation_y(0.3), 1e-6), "{q:?}");
        assert!((q.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn cubic_splines_pass_through_keys_and_follow_tangents() {
        // keys 0 at t=0 and 1 at t=2, out-tangent of key 0 = 1, in-tangent of key 1 = 0
        let v = [9.0, 0.0, 1.0, 0.0, 1.0, 9.0];
        let c = channel(
            ChannelPath::Weights,
            Interpolation::CubicSpline,
            &[0.0, 2.0],
            &v,
            1,
        );
        let at = |t: f32| {
            let mut o = [0.0];
            c.sample(t, &mut o);
            o[0]
        };
        assert_eq!(at(0.0), 0.0);
        assert_eq!(at(2.0), 1.0);
        // s = 0.5: h00·0 + h10·td·1 + h01·1 + h11·td·0 = 0.125·2 + 0.5
        assert!((at(1.0) - 0.75).abs() < 1e-6, "{}", at(1.0));
    }

    #[test]
    fn bad_channels_are_refused() {
        let mut c = channel(
            ChannelPath::Scale,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[1.0; 6],
            3,
        );
        c.times = vec![1.0, 0.0];
        assert!(c.check().is_err());
        c.times = vec![0.0, 1.0];
        c.values.pop();
        assert!(c.check().is_err());
    }

    #[test]
    fn loop_modes_map_times_before_inside_and_after_the_clip() {
        let d = 2.0;
        // (time, once, repeat, pingpong) for a clip of 2 s
        let cases = [
            (-3.0, -3.0, 1.0, 1.0),
            (-0.5, -0.5, 1.5, 0.5),
            (0.0, 0.0, 0.0, 0.0),
            (0.75, 0.75, 0.75, 0.75),
            (2.0, 2.0, 0.0, 2.0),
            (2.5, 2.5, 0.5, 1.5),
            (3.5, 3.5, 1.5, 0.5),
            (4.0, 4.0, 0.0, 0.0),
            (5.0, 5.0, 1.0, 1.0),
        ];
        for (t, once, repeat, pingpong) in cases {
            assert_eq!(LoopMode::Once.clip_time(t, d), once, "{t}");
            assert!(
                (LoopMode::Repeat.clip_time(t, d) - repeat).abs() < 1e-6,
                "{t}"
            );
            assert!(
                (LoopMode::PingPong.clip_time(t, d) - pingpong).abs() < 1e-6,
                "{t}"
            );
        }
        // a clip without length stays at 0; NaN passes through `Once`
        for mode in [LoopMode::Repeat, LoopMode::PingPong] {
            assert_eq!(mode.clip_time(3.0, 0.0), 0.0);
            assert_eq!(mode.clip_time(3.0, f32::NAN), 0.0);
        }
        assert!(LoopMode::Once.clip_time(f32::NAN, d).is_nan());
        for mode in LoopMode::ALL {
            assert_eq!(LoopMode::from_name(mode.name()), Some(mode));
        }
        assert_eq!(LoopMode::from_name("bounce"), None);
    }

    #[test]
    fn each_mode_samples_the_spec_formulas_before_inside_and_after_the_keys() {
        // keys at 0.5 s and 2 s: x from 0 to 3 (LINEAR), a step to 7 at 2 s
        // (STEP); the clip lasts 2 s
        let lin = channel(
            ChannelPath::Translation,
            Interpolation::Linear,
            &[0.5, 2.0],
            &[0.0, 0.0, 0.0, 3.0, 0.0, 0.0],
            3,
        );
        let step = channel(
            ChannelPath::Translation,
            Interpolation::Step,
            &[0.5, 2.0],
            &[1.0, 0.0, 0.0, 7.0, 0.0, 0.0],
            3,
        );
        let clip = Animation {
            name: "clip".into(),
            channels: vec![lin.clone(), step.clone()],
        };
        assert_eq!(clip.duration(), 2.0);
        // glTF's formulas: clamp to the keys, then (1 − s)·v0 + s·v1, or v0
        let linear = |u: f32| 3.0 * ((u.clamp(0.5, 2.0) - 0.5) / 1.5);
        let stepped = |u: f32| if u >= 2.0 { 7.0 } else { 1.0 };
        for mode in LoopMode::ALL {
            for t in [-1.3, 0.0, 0.3, 0.5, 1.1, 1.99, 2.0, 2.4, 3.7, 6.2] {
                let u = mode.clip_time(t, clip.duration());
                assert!((lin.vec3_at(u).x - linear(u)).abs() < 1e-5, "{mode:?} {t}");
                assert_eq!(step.vec3_at(u).x, stepped(u), "{mode:?} {t}");
            }
        }
        // after the end: once holds the last key, repeat starts over,
        // pingpong comes back
        let at = |mode: LoopMode| lin.vec3_at(mode.clip_time(2.6, 2.0)).x;
        assert_eq!(at(LoopMode::Once), 3.0);
        assert!((at(LoopMode::Repeat) - linear(0.6)).abs() < 1e-5);
        assert!((at(LoopMode::PingPong) - linear(1.4)).abs() < 1e-5);
    }
}
