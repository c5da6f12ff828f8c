//! A softpick scene with the ray caster of its current state kept beside
//! it: the caster's per-mesh transforms and its BVH over the meshes' world
//! boxes are made at the first query after a change and reused by every
//! query until the next change (a moved node, posed vertices, a rebuild),
//! which drops them. A caster borrows its scene, so the two live in one
//! self-referential cell (the `self_cell` crate).

use softpick::{RayCaster, Scene};

self_cell::self_cell!(
    struct Cast {
        owner: Scene,
        #[covariant]
        dependent: RayCaster,
    }
);

// (a scene is moved in and out of the cell at each change; boxing it would
// add an allocation per change for nothing)
#[allow(clippy::large_enum_variant)]
enum State {
    Plain(Scene),
    Cast(Cast),
}

/// The scene, and its caster once a query has asked for it.
pub(crate) struct Core(Option<State>);

impl Default for Core {
    fn default() -> Self {
        Core::new(Scene::new())
    }
}

impl Core {
    pub(crate) fn new(scene: Scene) -> Core {
        Core(Some(State::Plain(scene)))
    }

    /// The scene.
    pub(crate) fn scene(&self) -> &Scene {
        match self.0.as_ref().expect("a core always holds a scene") {
            State::Plain(s) => s,
            State::Cast(c) => c.borrow_owner(),
        }
    }

    /// The scene, to change (its caster is dropped).
    pub(crate) fn scene_mut(&mut self) -> &mut Scene {
        if let Some(State::Cast(_)) = self.0 {
            let Some(State::Cast(c)) = self.0.take() else {
                unreachable!("matched above")
            };
            self.0 = Some(State::Plain(c.into_owner()));
        }
        match self.0.as_mut() {
            Some(State::Plain(s)) => s,
            _ => unreachable!("made plain above"),
        }
    }

    /// Takes the scene out, leaving an empty one.
    pub(crate) fn take(&mut self) -> Scene {
        std::mem::take(self.scene_mut())
    }

    /// `f` of the scene and its caster (made now if the scene changed since
    /// the last query).
    pub(crate) fn with_caster<R>(&mut self, f: impl FnOnce(&Scene, &RayCaster<'_>) -> R) -> R {
        if let Some(State::Plain(_)) = self.0 {
            let Some(State::Plain(s)) = self.0.take() else {
                unreachable!("matched above")
            };
            self.0 = Some(State::Cast(Cast::new(s, |s| RayCaster::new(s))));
        }
        match self.0.as_ref() {
            Some(State::Cast(c)) => c.with_dependent(|s, caster| f(s, caster)),
            _ => unreachable!("made a caster above"),
        }
    }
}
