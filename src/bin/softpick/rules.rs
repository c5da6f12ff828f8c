//! `softpick rules`: the four fill rules side by side. The counting (gaps,
//! double cover, false claims and their definitions) is the library's
//! [`softpick::analyze_rules`]; this module draws the picture.
//!
//! Each panel is the rule's ID buffer as a pick map (one color per mesh,
//! background black) with the problem pixels painted over: gaps magenta,
//! double cover cyan, false claims yellow (a pixel with several problems
//! shows the later color in that list). Under each panel a caption strip
//! names the rule and gives the three counts in the same colors.

use serde_json::json;
use softpick::internals::id_color;
use softpick::{RuleReport, Scene};

use crate::args::RulesCmd;
use crate::common::{default_output, say, Outputs, Res, Setup};
use crate::font::{Canvas, GLYPH_H};

/// Gap pixels: inside the silhouette but covered by nobody.
pub const GAP_COLOR: u32 = 0x00FF_00FF;
/// Pixels covered by two triangles of one mesh sharing an edge.
pub const DOUBLE_COLOR: u32 = 0x0000_FFFF;
/// Pixels claimed by a zero-area triangle.
pub const CLAIM_COLOR: u32 = 0x00FF_FF00;
/// Columns between panels.
pub const SEPARATOR: u32 = 4;
const SEPARATOR_COLOR: u32 = 0x0040_4040;
const CAPTION_BG: u32 = 0x0010_1418;
const CAPTION_FG: u32 = 0x00F0_F0F0;
/// Caption lines (rule name and three counts).
const CAPTION_LINES: u32 = 4;
/// Caption line height in font pixels (glyph + spacing).
const LINE: u32 = GLYPH_H + 3;

/// Font scale for panels `panel_w` pixels wide.
pub fn caption_scale(panel_w: u32) -> u32 {
    if panel_w >= 200 {
        2
    } else {
        1
    }
}

/// Height of the caption strip.
pub fn caption_height(panel_w: u32) -> u32 {
    caption_scale(panel_w) * (4 + CAPTION_LINES * LINE + 2)
}

/// Composes the picture: (width, height, 0x00RRGGBB pixels).
pub fn compose(scene: &Scene, reports: &[RuleReport], w: u32, h: u32) -> (u32, u32, Vec<u32>) {
    let n = reports.len() as u32;
    let cap = caption_height(w);
    let scale = caption_scale(w);
    let (tw, th) = (n * w + n.saturating_sub(1) * SEPARATOR, h + cap);
    let mut px = vec![SEPARATOR_COLOR; (tw * th) as usize];
    for (k, r) in reports.iter().enumerate() {
        let x0 = k as u32 * (w + SEPARATOR);
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as usize;
                let m = r.mask.get(i).copied().unwrap_or(0);
                let c = if m & RuleReport::CLAIM != 0 {
                    CLAIM_COLOR
                } else if m & RuleReport::GAP != 0 {
                    GAP_COLOR
                } else if m & RuleReport::DOUBLE != 0 {
                    DOUBLE_COLOR
                } else {
                    let id = r.ids.get(i).copied().unwrap_or(0);
                    id_color(
                        id.checked_sub(1)
                            .and_then(|g| scene.locate(g))
                            .map(|(mesh, _)| mesh),
                    )
                };
                px[(y * tw + x0 + x) as usize] = c;
            }
        }
        let mut canvas = Canvas {
            px: &mut px,
            width: tw,
            clip: [x0, h, x0 + w, th],
        };
        canvas.fill(x0, h, x0 + w, th, CAPTION_BG);
        let (tx, mut ty) = (x0 + 3 * scale, h + 4 * scale);
        let lines = [
            (CAPTION_FG, r.rule.name().to_string()),
            (GAP_COLOR, format!("gaps {}", r.gaps)),
            (DOUBLE_COLOR, format!("double {}", r.double)),
            (CLAIM_COLOR, format!("false claims {}", r.false_claims)),
        ];
        for (color, text) in lines {
            canvas.text(tx, ty, scale, color, &text);
            ty += LINE * scale;
        }
    }
    (tw, th, px)
}

/// Prints the counts: a table, or one JSON line per rule.
pub fn print_table(reports: &[RuleReport], json_out: bool) -> Res<()> {
    if json_out {
        for r in reports {
            let line = json!({
                "rule": r.rule.name(),
                "covered": r.covered,
                "gaps": r.gaps,
                "double": r.double,
                "false_claims": r.false_claims,
            });
            say(format_args!("{line}"))?;
        }
        return Ok(());
    }
    say(format_args!(
        "{:<11} {:>8} {:>6} {:>7} {:>13}",
        "rule", "covered", "gaps", "double", "false claims"
    ))?;
    for r in reports {
        say(format_args!(
            "{:<11} {:>8} {:>6} {:>7} {:>13}",
            r.rule.name(),
            r.covered,
            r.gaps,
            r.double,
            r.false_claims
        ))?;
    }
    Ok(())
}

/// `softpick rules`.
pub fn rules_cmd(a: &RulesCmd) -> Res<()> {
    let s = Setup::new(&a.scene, None)?;
    let reports = softpick::analyze_rules(&s.scene, &s.camera)?;
    let (w, h, px) = compose(&s.scene, &reports, s.camera.width, s.camera.height);
    let mut out = Outputs::default();
    let path = default_output(a.output.as_deref(), "rules.png")?;
    out.png(&path, w, h, &px)?;
    out.commit()?;
    print_table(&reports, a.json)?;
    if !a.json {
        say(format_args!("wrote {}", path.display()))?;
    }
    Ok(())
}
