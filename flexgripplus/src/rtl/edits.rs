//! The few lines of FlexGripPlus 4.4 that GHDL's synthesis does not take,
//! rewritten to mean the same for synthesis. Each edit must match exactly
//! once, or the tree is not the FlexGripPlus these edits were written for.

use crate::design::Sources;
use crate::CosimError;

/// One rewrite: in `file` (below the RTL folder), `from` becomes `to`.
struct Edit {
    file: &'static str,
    from: &'static str,
    to: &'static str,
    why: &'static str,
}

const SHIFT_FROM: &str = "to_stdlogicvector(to_bitvector(addr_hi_i_3) sll 2)";
const SHIFT_TO: &str = "std_logic_vector(shift_left(unsigned(addr_hi_i_3), 2))";
const SHIFT_WHY: &str = "GHDL's synthesis does not take `sll` on a bit_vector";

const EDITS: &[Edit] = &[
    Edit {
        file: "SMP/Pipeline/Decode/pipeline_decode.vhd",
        from: SHIFT_FROM,
        to: SHIFT_TO,
        why: SHIFT_WHY,
    },
    Edit {
        file: "SMP/Pipeline/Read/pipeline_read.vhd",
        from: SHIFT_FROM,
        to: SHIFT_TO,
        why: SHIFT_WHY,
    },
    Edit {
        file: "SMP/global_memory_controller.vhd",
        from: SHIFT_FROM,
        to: SHIFT_TO,
        why: SHIFT_WHY,
    },
    // 64 copies of one process (the generate's index is shadowed by the
    // loop's) drive the read-back register with equal values: simulation
    // resolves them to that value, synthesis refuses the drivers.
    Edit {
        file: "gpgpu_configuration.vhd",
        from: "gLoopRegistersRead : for i in 0 to 63 generate",
        to: "gLoopRegistersRead : if true generate",
        why: "64 identical drivers of config_reg_data_out",
    },
    // The initialisation file's generic is inside `translate_off`;
    // flexpmu loads the memories' contents into the imported design.
    Edit {
        file: "dp_ram.vhd",
        from: "shared variable ram : mem_type := init_mem(mif_file_name => RAM_INIT_FILE);",
        to: "shared variable ram : mem_type := (others => (others => '0'));",
        why: "the memory's initialisation file is a generic synthesis does not see",
    },
];

/// The edits as a unified diff against `sources` (as flexpmu compiles
/// them, before the edits), paths below `prefix`: one hunk per edit, the
/// whole line before and after, each file's reason above its header.
pub(super) fn patch(sources: &Sources, prefix: &str) -> Result<String, CosimError> {
    let mut out = String::new();
    for edit in EDITS {
        let text = file(sources, edit)?;
        let at = once(text, edit)?;
        let line = text[..at].matches('\n').count() + 1;
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let before = &text[start..end];
        let after = before.replacen(edit.from, edit.to, 1);
        let path = format!("{prefix}/{}", edit.file);
        out += &format!(
            "{}: {}\n--- a/{path}\n+++ b/{path}\n@@ -{line} +{line} @@\n-{before}\n+{after}\n",
            edit.file, edit.why
        );
    }
    Ok(out)
}

/// The text of `edit`'s file in `sources`.
fn file<'s>(sources: &'s Sources, edit: &Edit) -> Result<&'s str, CosimError> {
    let name = format!("flexgripplus/{}", edit.file);
    sources
        .files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text.as_str())
        .ok_or_else(|| {
            CosimError::Tree(format!(
                "FlexGripPlus' compile script analyses no {}, which the import rewrites ({})",
                edit.file, edit.why
            ))
        })
}

/// Where `edit` applies in `text`: it must match exactly once.
fn once(text: &str, edit: &Edit) -> Result<usize, CosimError> {
    let found = text.matches(edit.from).count();
    if found != 1 {
        return Err(CosimError::Tree(format!(
            "{}: expected `{}` once (rewritten for synthesis: {}), found it {found} times: not the FlexGripPlus 4.4 flexpmu imports",
            edit.file, edit.from, edit.why
        )));
    }
    Ok(text.find(edit.from).expect("found once"))
}

/// `sources` with every edit applied.
pub(super) fn apply(sources: &mut Sources) -> Result<(), CosimError> {
    for edit in EDITS {
        let at = once(file(sources, edit)?, edit)?;
        let name = format!("flexgripplus/{}", edit.file);
        if let Some((_, text)) = sources.files.iter_mut().find(|(n, _)| *n == name) {
            text.replace_range(at..at + edit.from.len(), edit.to);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> Sources {
        Sources {
            files: EDITS
                .iter()
                .map(|e| {
                    (
                        format!("flexgripplus/{}", e.file),
                        format!("-- before\n  x <= {};\n", e.from),
                    )
                })
                .collect(),
            root: std::path::PathBuf::from("RTL"),
        }
    }

    #[test]
    fn every_edit_is_applied_once() {
        let mut s = sources();
        apply(&mut s).unwrap();
        for (edit, (_, text)) in EDITS.iter().zip(&s.files) {
            assert_eq!(text, &format!("-- before\n  x <= {};\n", edit.to));
        }
    }

    #[test]
    fn the_edits_print_as_a_patch_of_whole_lines() {
        let patch = patch(&sources(), "RTL").unwrap();
        assert!(patch.starts_with(
            "SMP/Pipeline/Decode/pipeline_decode.vhd: GHDL's synthesis does not take `sll` on a bit_vector\n\
             --- a/RTL/SMP/Pipeline/Decode/pipeline_decode.vhd\n\
             +++ b/RTL/SMP/Pipeline/Decode/pipeline_decode.vhd\n\
             @@ -2 +2 @@\n\
             -  x <= to_stdlogicvector(to_bitvector(addr_hi_i_3) sll 2);\n\
             +  x <= std_logic_vector(shift_left(unsigned(addr_hi_i_3), 2));\n"
        ), "{patch}");
        assert_eq!(patch.matches("\n@@ ").count(), EDITS.len());
    }

    #[test]
    fn a_tree_without_a_line_or_with_it_twice_is_refused() {
        let mut s = sources();
        s.files[3].1 = "nothing".into();
        let e = apply(&mut s).unwrap_err().to_string();
        assert!(
            e.contains("gpgpu_configuration.vhd: expected `gLoopRegistersRead"),
            "{e}"
        );
        assert!(e.contains("found it 0 times"), "{e}");
        let mut s = sources();
        let twice = s.files[4].1.repeat(2);
        s.files[4].1 = twice;
        let e = apply(&mut s).unwrap_err().to_string();
        assert!(e.contains("found it 2 times"), "{e}");
        let mut s = sources();
        s.files.remove(0);
        let e = apply(&mut s).unwrap_err().to_string();
        assert!(
            e.contains("analyses no SMP/Pipeline/Decode/pipeline_decode.vhd"),
            "{e}"
        );
    }
}
