//! Playing a scene's animations in the viewer: `Space` plays and pauses
//! (while no mesh is driven; with a driving set it moves them up), `[` and
//! `]` step to the previous and next animation. While playing, the clock
//! advances by the elapsed time, past the animation's end as its
//! [`LoopMode`] says (the viewer plays with `Repeat` unless told
//! otherwise: it loops over the duration); the window poses the scene at
//! the clock, with that mode, before each render, so picks, hover and
//! selections answer on the pose that is drawn.

use crate::scene::LoopMode;

/// The animation clock.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Player {
    /// What a time past the animation's end means.
    pub(super) mode: LoopMode,
    /// Names and durations of the scene's animations.
    clips: Vec<(String, f32)>,
    /// The animation played.
    pub(super) current: usize,
    /// Is the clock running?
    pub(super) playing: bool,
    /// Seconds into the current animation: the clock itself for `Once`
    /// (it stops at the end), reduced to one period of the mode otherwise
    /// (the duration for `Repeat`, twice it for `PingPong`), so that it
    /// keeps its precision however long it plays.
    pub(super) time: f32,
    /// Must the scene be posed at `time` before the next render?
    pending: bool,
}

impl Player {
    /// A paused clock at `time` of animation `current` of `clips` (names and
    /// durations), past the end as `mode` says; posed at the first render
    /// when there is an animation.
    pub(super) fn new(
        clips: Vec<(String, f32)>,
        current: usize,
        time: f32,
        mode: LoopMode,
    ) -> Self {
        let pending = !clips.is_empty();
        Self {
            mode,
            current: current.min(clips.len().saturating_sub(1)),
            clips,
            playing: false,
            time,
            pending,
        }
    }

    /// Does the scene have animations?
    pub(super) fn has_animations(&self) -> bool {
        !self.clips.is_empty()
    }

    fn name(&self) -> &str {
        self.clips.get(self.current).map_or("", |c| c.0.as_str())
    }

    /// `Space`: play or pause; the stdout line.
    pub(super) fn toggle(&mut self) -> String {
        if self.clips.is_empty() {
            return "animation none".into();
        }
        self.playing = !self.playing;
        let what = if self.playing { "play" } else { "pause" };
        format!(
            "animation {what} index={} name={} t={:.3}",
            self.current,
            self.name(),
            self.clip_time()
        )
    }

    /// `[` (`by` = −1) or `]` (+1): the previous or next animation from its
    /// start, wrapping; the stdout line.
    pub(super) fn step(&mut self, by: isize) -> String {
        let n = self.clips.len();
        if n == 0 {
            return "animation none".into();
        }
        self.current = (self.current as isize + by).rem_euclid(n as isize) as usize;
        self.time = 0.0;
        self.pending = true;
        format!(
            "animation index={} name={} duration={:.3}",
            self.current,
            self.name(),
            self.clips[self.current].1
        )
    }

    /// The current animation's duration (0 without animations).
    fn duration(&self) -> f32 {
        self.clips.get(self.current).map_or(0.0, |c| c.1)
    }

    /// The time the channels are sampled at ([`LoopMode::clip_time`]).
    pub(super) fn clip_time(&self) -> f32 {
        self.mode.clip_time(self.time, self.duration())
    }

    /// Advances the clock by `dt` seconds when playing (past the end as
    /// the mode says); the time to pose the scene at (with the mode), when
    /// it must be posed.
    pub(super) fn advance(&mut self, dt: f32) -> Option<f32> {
        if self.clips.is_empty() {
            return None;
        }
        if self.playing && dt > 0.0 {
            let d = self.duration();
            let t = self.time + dt;
            self.time = match self.mode {
                // (a clock past the end stops there; one started past it stays)
                LoopMode::Once => t.min(d.max(self.time)),
                _ if !(d > 0.0) => 0.0,
                LoopMode::Repeat => t.rem_euclid(d),
                LoopMode::PingPong => t.rem_euclid(2.0 * d),
            };
            self.pending = true;
        }
        std::mem::take(&mut self.pending).then_some(self.time)
    }

    /// The title's part: `Walk playing 0.50 s` or `Walk paused 0.50 s`.
    pub(super) fn title(&self) -> Option<String> {
        self.has_animations().then(|| {
            let s = if self.playing { "playing" } else { "paused" };
            format!("{} {s} {:.2} s", self.name(), self.clip_time())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clips() -> Vec<(String, f32)> {
        vec![
            ("Survey".into(), 2.0),
            ("Walk".into(), 0.75),
            ("Run".into(), 0.5),
        ]
    }

    #[test]
    fn the_clock_plays_pauses_loops_and_steps() {
        let mut p = Player::new(clips(), 1, 0.25, LoopMode::Repeat);
        assert_eq!(
            p.advance(0.1),
            Some(0.25),
            "the first render poses the start time"
        );
        assert_eq!(p.advance(0.1), None, "paused: nothing to pose");
        assert_eq!(p.toggle(), "animation play index=1 name=Walk t=0.250");
        assert_eq!(p.advance(0.25), Some(0.5));
        // loops over Walk's 0.75 s
        let t = p.advance(0.5).unwrap();
        assert!((t - 0.25).abs() < 1e-6, "{t}");
        assert!(p.toggle().starts_with("animation pause index=1"));
        assert_eq!(p.advance(1.0), None);
        assert_eq!(p.step(1), "animation index=2 name=Run duration=0.500");
        assert_eq!(
            p.advance(0.0),
            Some(0.0),
            "a new animation is posed from its start"
        );
        assert!(
            p.step(1).starts_with("animation index=0 name=Survey"),
            "wraps"
        );
        assert!(p.step(-1).starts_with("animation index=2"));
    }

    #[test]
    fn without_animations_nothing_plays() {
        let mut p = Player::new(Vec::new(), 0, 0.0, LoopMode::Repeat);
        assert_eq!(p.toggle(), "animation none");
        assert_eq!(p.step(1), "animation none");
        assert_eq!(p.advance(1.0), None);
        assert_eq!(p.title(), None);
    }

    #[test]
    fn pingpong_plays_back_and_once_stops_at_the_end() {
        let mut p = Player::new(clips(), 2, 0.25, LoopMode::PingPong);
        let _ = p.advance(0.0);
        p.toggle();
        // Run is 0.5 s long: 0.25 + 0.5 = 0.75 is 0.25 back from the end
        let t = p.advance(0.5).unwrap();
        assert!((p.mode.clip_time(t, 0.5) - 0.25).abs() < 1e-6, "{t}");
        assert!((p.clip_time() - 0.25).abs() < 1e-6);
        // and forth again after 2 × 0.5
        let t = p.advance(0.5).unwrap();
        assert!((p.mode.clip_time(t, 0.5) - 0.25).abs() < 1e-6, "{t}");
        let mut once = Player::new(clips(), 2, 0.25, LoopMode::Once);
        let _ = once.advance(0.0);
        once.toggle();
        assert_eq!(once.advance(10.0), Some(0.5), "stops at the end");
        assert_eq!(once.advance(1.0), Some(0.5));
        let mut late = Player::new(clips(), 2, 7.0, LoopMode::Once);
        let _ = late.advance(0.0);
        late.toggle();
        assert_eq!(late.advance(1.0), Some(7.0), "started past the end: stays");
    }
}
