//! Animations: keyframe channels that drive node transforms and morph
//! weights, sampled at a time as the glTF 2.0 spec defines it (STEP,
//! LINEAR with spherical interpolation for rotations, CUBICSPLINE with
//! Hermite tangents); times outside the keys clamp to the first or last.

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
}
