//! Which of a file's scenes to load.

use super::Fail;
use crate::io::LoadOptions;

/// Which scene to load: `opts.scene` (an index or a name), else the
/// default scene, else the first; `None` when the file has no scenes.
pub(super) fn choose_scene<'d>(
    doc: &'d gltf::Document,
    opts: &LoadOptions,
) -> Result<Option<gltf::Scene<'d>>, Fail> {
    let Some(want) = &opts.scene else {
        return Ok(doc.default_scene().or_else(|| doc.scenes().next()));
    };
    let n = doc.scenes().len();
    let found = match want.parse::<usize>() {
        Ok(i) => doc.scenes().nth(i),
        Err(_) => doc.scenes().find(|s| s.name() == Some(want.as_str())),
    };
    found.map(Some).ok_or_else(|| {
        let names: Vec<String> = doc
            .scenes()
            .map(|s| match s.name() {
                Some(name) => format!("{} ({name})", s.index()),
                None => s.index().to_string(),
            })
            .collect();
        Fail::at(
            "scenes",
            format!(
                "no scene `{want}`: the file has {n} ({})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        )
    })
}
