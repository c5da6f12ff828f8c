//! User clip planes in three.js's terms: planes for every object (the
//! renderer's `clippingPlanes`) and, per object, planes of each primitive's
//! material (`material.clippingPlanes`), as softpick's [`ClipPlanes`] for
//! the meshes of the built scene (made again after a change).

use std::collections::HashMap;

use softpick::ClipPlanes;

/// The planes as given, and the softpick planes made of them.
#[derive(Default)]
pub(crate) struct Clipping {
    all: Vec<[f32; 4]>,
    /// Per object, per primitive, its material's planes.
    objects: HashMap<u32, Vec<Vec<[f32; 4]>>>,
    made: Option<Option<ClipPlanes>>,
}

/// Planes from JavaScript: four values each (normal x, y, z, constant).
pub(crate) fn planes(values: &[f32]) -> Result<Vec<[f32; 4]>, String> {
    if !values.len().is_multiple_of(4) {
        return Err(format!(
            "{} clip plane values is not a whole number of planes (4 values each)",
            values.len()
        ));
    }
    Ok(values
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect())
}

/// Checks `all` planes, and `own` planes on top of them for one mesh, as
/// softpick checks them; the error is the core's message.
fn check(all: &[[f32; 4]], own: &[[f32; 4]]) -> Result<(), String> {
    ClipPlanes::new(all)
        .and_then(|c| c.with_mesh(0, own))
        .map(drop)
        .map_err(|e| e.to_string())
}

impl Clipping {
    /// The planes of every object (checked as softpick checks them).
    pub(crate) fn set_all(&mut self, planes: Vec<[f32; 4]>) -> Result<(), String> {
        check(&planes, &[])?;
        for prims in self.objects.values() {
            for p in prims {
                check(&planes, p)?;
            }
        }
        self.all = planes;
        self.made = None;
        Ok(())
    }

    /// Object `id`'s planes: `planes` split into its primitives by
    /// `counts` (planes per primitive), or all of them for every primitive
    /// (`counts` empty, `prims` primitives).
    pub(crate) fn set_object(
        &mut self,
        id: u32,
        planes: Vec<[f32; 4]>,
        counts: &[u32],
        prims: usize,
    ) -> Result<(), String> {
        let per: Vec<Vec<[f32; 4]>> = if counts.is_empty() {
            vec![planes; prims]
        } else {
            if counts.len() != prims
                // (summed in u64: a usize sum of u32 counts can wrap on
                // wasm32 and pass, and split_at would then panic)
                || counts.iter().map(|&c| u64::from(c)).sum::<u64>() != planes.len() as u64
            {
                return Err(format!(
                    "{} clip planes in {} counts for {prims} primitives",
                    planes.len(),
                    counts.len()
                ));
            }
            let mut rest = &planes[..];
            counts
                .iter()
                .map(|&c| {
                    let (a, b) = rest.split_at(c as usize);
                    rest = b;
                    a.to_vec()
                })
                .collect()
        };
        for p in &per {
            check(&self.all, p)?;
        }
        if per.iter().all(Vec::is_empty) {
            self.objects.remove(&id);
        } else {
            self.objects.insert(id, per);
        }
        self.made = None;
        Ok(())
    }

    /// Whether any plane is set (for every object, or for one).
    pub(crate) fn any(&self) -> bool {
        !self.all.is_empty() || self.objects.values().flatten().any(|p| !p.is_empty())
    }

    /// Forgets a removed object's planes.
    pub(crate) fn remove(&mut self, id: u32) {
        if self.objects.remove(&id).is_some() {
            self.made = None;
        }
    }

    /// The scene's meshes changed: the softpick planes are made again.
    pub(crate) fn rebuilt(&mut self) {
        self.made = None;
    }

    /// The softpick planes of the built scene's meshes, given as each
    /// mesh's (object, primitive) in mesh order (`None`: no plane).
    pub(crate) fn planes(
        &mut self,
        meshes: impl IntoIterator<Item = (u32, u32)>,
    ) -> Option<&ClipPlanes> {
        let (all, objects) = (&self.all, &self.objects);
        self.made
            .get_or_insert_with(|| {
                // (every set was checked when given)
                let mut c = ClipPlanes::new(all).ok()?;
                for (m, (object, prim)) in meshes.into_iter().enumerate() {
                    if let Some(p) = objects.get(&object).and_then(|o| o.get(prim as usize)) {
                        if !p.is_empty() {
                            c = c.with_mesh(m as u32, p).ok()?;
                        }
                    }
                }
                (!c.is_empty()).then_some(c)
            })
            .as_ref()
    }
}
