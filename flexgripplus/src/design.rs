//! FlexGripPlus made ready to run kernels: a copy of its RTL with the
//! kit's README applied (or stock), flexpmu's probe inside its SM and
//! flexpmu's testbench around its top, analysed and elaborated by GHDL
//! once and kept in a cache folder named by the digest of everything that
//! went in (the tree's files, the kit, the probe, the testbench, GHDL's
//! version), so a kernel then costs its simulation only.

use std::path::{Path, PathBuf};

use flexpmu_export::flexgripplus::integrate;
use flexpmu_export::flexgripplus::vhdl_edit::VhdlSource;
use flexpmu_export::flexgripplus::KitFile;
use flexpmu_tools::ghdl::FLEXGRIPPLUS_FLAGS;
use flexpmu_tools::runner::{run_unchecked, ToolError};

use crate::kept;
use crate::tree::Tree;
use crate::CosimError;

/// flexpmu's testbench, FlexGripPlus' top around it.
pub const TESTBENCH: &str = include_str!("vhdl/flexpmu_cosim_tb.vhd");
/// flexpmu's probe, inside FlexGripPlus' SM.
pub const PROBE: &str = include_str!("vhdl/flexpmu_cosim_probe.vhd");
/// The testbench's entity.
pub const TOP: &str = "flexpmu_cosim_tb";

/// FlexGripPlus as it ships, or with the PMU and its hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// The kit's README applied (`generated_vhdl/flexgripplus/`): PMEVENTs
    /// run on FlexGripPlus' PMU.
    Kit,
    /// FlexGripPlus 4.4 unchanged (a PMEVENT is a no-op).
    Stock,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Kit => "kit",
            Variant::Stock => "stock",
        }
    }
}

/// Which GHDL compiles and how a simulation runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A GHDL that compiles to machine code (LLVM or GCC back end): the
    /// elaboration is an executable (about 2.4 times as fast on
    /// FlexGripPlus as mcode).
    Compiled { ghdl: String },
    /// GHDL's mcode back end: `ghdl -r` compiles in memory at each run.
    Mcode { ghdl: String },
}

impl Backend {
    /// The fastest GHDL installed: `ghdl-llvm` (Debian's package of that
    /// name), else `ghdl` with whatever back end it was built with.
    pub fn find() -> Result<(Backend, String), CosimError> {
        let version = |program: &str| -> Result<Option<String>, CosimError> {
            match run_unchecked(Path::new(program), program, &["--version"], Path::new(".")) {
                Ok((true, log)) => Ok(Some(log)),
                Ok((false, _)) => Ok(None),
                Err(ToolError::Missing(_)) => Ok(None),
                Err(e) => Err(e.into()),
            }
        };
        if let Some(log) = version("ghdl-llvm")? {
            return Ok((
                Backend::Compiled {
                    ghdl: "ghdl-llvm".into(),
                },
                first_line(&log),
            ));
        }
        match version("ghdl")? {
            Some(log) if log.contains("mcode") => {
                Ok((Backend::Mcode { ghdl: "ghdl".into() }, first_line(&log)))
            }
            Some(log) => Ok((Backend::Compiled { ghdl: "ghdl".into() }, first_line(&log))),
            None => Err(CosimError::Tool(ToolError::Missing(
                "`ghdl` was not found on PATH: install it with `apt-get install -y ghdl ghdl-llvm` \
                 (ghdl-llvm runs FlexGripPlus about 2.4 times as fast; scripts/test installs both)"
                    .into(),
            ))),
        }
    }

    fn ghdl(&self) -> &str {
        match self {
            Backend::Compiled { ghdl } | Backend::Mcode { ghdl } => ghdl,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Backend::Compiled { .. } => "compiled",
            Backend::Mcode { .. } => "mcode",
        }
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_string()
}

/// FlexGripPlus ready to simulate (see the module's page).
#[derive(Clone, Debug)]
pub struct Design {
    /// The cache folder holding it.
    pub dir: PathBuf,
    pub variant: Variant,
    pub backend: Backend,
    /// Whether this call analysed it (false: it came from the cache).
    pub built: bool,
}

impl Design {
    /// FlexGripPlus of `tree` as `variant` with the kit's `kit` sources
    /// (analysis order; empty for [`Variant::Stock`]), from `cache` when an
    /// identical one was made before, else made there (`on_step` hears
    /// what is being done).
    pub fn prepare(
        tree: &Tree,
        variant: Variant,
        kit: &[KitFile],
        cache: &Path,
        on_step: &mut dyn FnMut(&str),
    ) -> Result<Design, CosimError> {
        let (backend, ghdl_version) = Backend::find()?;
        let sources = Sources::simulation(tree, variant, kit)?;
        let mut identity = sources.identity();
        identity.extend_from_slice(ghdl_version.as_bytes());
        identity.extend_from_slice(backend.name().as_bytes());
        let prefix = format!("flexgripplus-{}", variant.name());
        let kept = kept::folder(
            cache,
            &prefix,
            &identity,
            "the analysed FlexGripPlus",
            on_step,
            |dir, on_step| {
                build(&sources, &backend, dir, on_step)?;
                Ok(format!("{ghdl_version}\n"))
            },
        )?;
        Ok(Design {
            dir: kept.dir,
            variant,
            backend,
            built: kept.built,
        })
    }

    /// The GHDL library folder.
    pub fn work(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// The program and arguments that run the testbench in a folder.
    pub fn command(&self) -> (PathBuf, Vec<String>) {
        let mut args: Vec<String> = Vec::new();
        let program = match &self.backend {
            Backend::Compiled { .. } => self.work().join(TOP),
            Backend::Mcode { ghdl } => {
                args.push("-r".into());
                args.extend(FLEXGRIPPLUS_FLAGS.iter().map(|f| f.to_string()));
                args.push(format!("--workdir={}", self.work().display()));
                args.push(TOP.into());
                PathBuf::from(ghdl)
            }
        };
        // FlexGripPlus' register files are larger than GHDL's default
        // stack allows for a process' variables.
        args.push("--max-stack-alloc=0".into());
        (program, args)
    }
}

/// The VHDL files of one design, in analysis order: (name below the
/// design's `rtl/`, text).
pub(crate) struct Sources {
    pub(crate) files: Vec<(String, String)>,
    /// The user's `RTL` folder the `flexgripplus/` files come from: where
    /// an error in one of them is reported.
    pub(crate) root: PathBuf,
}

/// Where the probe's file goes in [`Sources`].
const PROBE_FILE: &str = "flexpmu/flexpmu_cosim_probe.vhd";

impl Sources {
    /// FlexGripPlus' own files of `tree` as `variant` (for
    /// [`Variant::Kit`], the SM integrated with the kit and the kit's
    /// `kit` files right after FlexGripPlus' package, which they use).
    pub(crate) fn rtl(
        tree: &Tree,
        variant: Variant,
        kit: &[KitFile],
    ) -> Result<Sources, CosimError> {
        let mut files = Vec::new();
        for file in &tree.files {
            let mut text = tree.read(file)?;
            if file == integrate::FILE && variant == Variant::Kit {
                let name = tree.rtl().join(file).display().to_string();
                text = integrate::integrate(&text, &name)?;
            }
            files.push((format!("flexgripplus/{file}"), text));
            if file == PACKAGE && variant == Variant::Kit {
                for source in kit {
                    files.push((
                        format!("flexpmu/{}", source.path.display()),
                        source.text.clone(),
                    ));
                }
            }
        }
        Ok(Sources {
            files,
            root: tree.rtl(),
        })
    }

    /// What the files are, for a cache folder's name: every name and text.
    pub(crate) fn identity(&self) -> Vec<u8> {
        let mut identity = Vec::new();
        for (name, text) in &self.files {
            identity.extend_from_slice(name.as_bytes());
            identity.push(0);
            identity.extend_from_slice(text.as_bytes());
            identity.push(0);
        }
        identity
    }

    /// Writes the files below `dir/rtl` and analyses them with `ghdl`
    /// into the library `dir/work` (`what` names them in errors, and
    /// `on_step` hears of it); the library's folder.
    pub(crate) fn analyse(
        &self,
        ghdl: &str,
        dir: &Path,
        what: &str,
        on_step: &mut dyn FnMut(&str),
    ) -> Result<PathBuf, CosimError> {
        let work = dir.join("work");
        std::fs::create_dir_all(&work).map_err(|e| CosimError::io(&work, e))?;
        let mut paths = Vec::new();
        for (name, text) in &self.files {
            let path = dir.join("rtl").join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| CosimError::io(parent, e))?;
            }
            std::fs::write(&path, text).map_err(|e| CosimError::io(&path, e))?;
            paths.push(path.display().to_string());
        }
        on_step(&format!(
            "analysing {} VHDL files with {ghdl} (once per FlexGripPlus tree)",
            paths.len()
        ));
        let workdir = format!("--workdir={}", work.display());
        let mut args: Vec<&str> = vec!["-a"];
        args.extend(FLEXGRIPPLUS_FLAGS);
        args.push(&workdir);
        args.extend(paths.iter().map(String::as_str));
        checked(ghdl, &args, dir, what).map_err(|e| self.at_users_files(e, &dir.join("rtl")))?;
        Ok(work)
    }

    /// `error` with the files it names in `copies` (the scratch copies
    /// GHDL read, which are gone once the build fails) named as the user
    /// has them: FlexGripPlus' files in its checkout (the SM's as flexpmu
    /// integrates the kit into it), flexpmu's own as the kit's.
    fn at_users_files(&self, error: CosimError, copies: &Path) -> CosimError {
        let CosimError::Tool(ToolError::Failed { tool, what, log }) = error else {
            return error;
        };
        let copies = copies.display().to_string();
        let theirs = format!("{copies}/flexgripplus/");
        let ours = format!("{copies}/flexpmu/");
        let root = format!("{}/", self.root.display());
        let log = log
            .replace(&theirs, &root)
            .replace(&ours, "flexpmu's kit, ");
        CosimError::Tool(ToolError::Failed { tool, what, log })
    }

    /// [`Sources::rtl`] with flexpmu's probe in the SM and its testbench.
    fn simulation(tree: &Tree, variant: Variant, kit: &[KitFile]) -> Result<Sources, CosimError> {
        let sm = format!("flexgripplus/{}", integrate::FILE);
        let package = format!("flexgripplus/{PACKAGE}");
        let mut files = Sources::rtl(tree, variant, kit)?.files;
        // The probe uses FlexGripPlus' package: it goes after the package
        // and the kit's files that follow it.
        let package_at = files
            .iter()
            .position(|(n, _)| *n == package)
            .ok_or_else(|| {
                CosimError::Tree(format!(
                    "FlexGripPlus' compile script analyses no {PACKAGE}"
                ))
            })?;
        let probe_at = files[package_at + 1..]
            .iter()
            .position(|(n, _)| !n.starts_with("flexpmu/"))
            .map_or(files.len(), |i| package_at + 1 + i);
        files.insert(probe_at, (PROBE_FILE.into(), PROBE.into()));
        for (name, text) in &mut files {
            if *name == sm {
                *text = with_probe(
                    text,
                    &tree.rtl().join(integrate::FILE).display().to_string(),
                )?;
            }
        }
        files.push(("flexpmu/flexpmu_cosim_tb.vhd".into(), TESTBENCH.into()));
        Ok(Sources {
            files,
            root: tree.rtl(),
        })
    }
}

/// FlexGripPlus' package, which the kit and the probe use.
const PACKAGE: &str = "gpgpu_package.vhd";

/// FlexGripPlus' SM with flexpmu's probe instantiated in it, reading the
/// architecture's own signals.
fn with_probe(source: &str, file: &str) -> Result<String, CosimError> {
    let mut vhdl = VhdlSource::new(source);
    vhdl.add_statements("arch", PROBE_INSTANCE)
        .map_err(|e| CosimError::Tree(format!("{file}: cannot add flexpmu's probe: {e}")))?;
    Ok(vhdl.into_text())
}

/// The probe's instance in `streaming_multiprocessor`'s architecture.
const PROBE_INSTANCE: &str = "
	-- flexpmu cosim: observes register, flag and global-memory writes.
	uFlexpmuCosimProbe : entity work.flexpmu_cosim_probe
		generic map(GMEM_ADDR_SIZE => GMEM_ADDR_SIZE)
		port map(
			clk_in               => clk_in,
			host_reset           => host_reset,
			smp_configuration_en => smp_configuration_en,
			controller_base_addr => smp_controller_gprs_addr,
			controller_reg_num   => smp_controller_gprs_reg_num,
			controller_lane_id   => smp_controller_gprs_lane_id,
			controller_wr_en     => smp_controller_gprs_wr_en,
			controller_wr_data   => smp_controller_gprs_wr_data,
			write_warp_id        => warp_id_ew,
			gprs_base_addr       => gprs_addr_b,
			gprs_reg_num         => gprs_reg_num_b,
			gprs_lane_id         => gprs_lane_id_b,
			gprs_wr_en           => gprs_wr_en_b,
			gprs_wr_data         => gprs_wr_data_b,
			pred_warp_id         => pred_regs_warp_id_b,
			pred_lane_id         => pred_regs_warp_lane_id_b,
			pred_reg_num         => pred_regs_addr_b,
			pred_wr_en           => pred_regs_wr_en_b,
			pred_wr_data         => pred_regs_wr_data_b,
			gmem_addr_a          => gmem_addr_a,
			gmem_wr_en_a         => gmem_wr_en_a,
			gmem_wr_data_a       => gmem_wr_data_a,
			gmem_addr_b          => gmem_addr_b,
			gmem_wr_en_b         => gmem_wr_en_b,
			gmem_wr_data_b       => gmem_wr_data_b,
			issue_done           => pipeline_warpunit_done,
			issue_warp           => warp_id_wf,
			issue_lane           => warp_lane_id_wf,
			issue_pc             => program_cntr_wf,
			fetch_done           => pipeline_fd_done,
			fetch_warp           => warp_id_fd,
			fetch_lane           => warp_lane_id_fd,
			decode_done          => pipeline_dec_done,
			decode_warp          => warp_id_dr,
			decode_lane          => warp_lane_id_dr,
			read_done            => pipeline_read_done,
			read_warp            => warp_id_re,
			read_lane            => warp_lane_id_re,
			read_operands        => temp_vector_register_re,
			execute_done         => pipeline_execute_done,
			execute_warp         => warp_id_ew,
			execute_lane         => warp_lane_id_ew,
			write_done           => pipeline_write_done,
			write_warp           => warp_id_ww,
			write_lane           => warp_lane_id_ww
		);

";

/// Writes `sources` below `dir/rtl`, analyses them into `dir/work` and
/// elaborates the testbench.
fn build(
    sources: &Sources,
    backend: &Backend,
    dir: &Path,
    on_step: &mut dyn FnMut(&str),
) -> Result<(), CosimError> {
    let ghdl = backend.ghdl();
    let what = "FlexGripPlus with flexpmu's testbench";
    let work = sources.analyse(ghdl, dir, what, on_step)?;
    let workdir = format!("--workdir={}", work.display());
    on_step("elaborating");
    let executable = work.join(TOP).display().to_string();
    let mut args: Vec<&str> = vec!["-e"];
    args.extend(FLEXGRIPPLUS_FLAGS);
    args.push(&workdir);
    if let Backend::Compiled { .. } = backend {
        args.extend(["-o", executable.as_str()]);
    }
    args.push(TOP);
    let log = checked(ghdl, &args, dir, what)?;
    let unbound: Vec<&str> = log.lines().filter(|l| l.contains("not bound")).collect();
    // FlexGripPlus itself leaves some testbench components unbound; its
    // RTL under flexpmu's testbench must have none.
    if !unbound.is_empty() {
        return Err(CosimError::Tool(ToolError::Failed {
            tool: ghdl.into(),
            what: format!("{what}: components left unbound"),
            log: unbound.join("\n"),
        }));
    }
    Ok(())
}

fn checked(ghdl: &str, args: &[&str], dir: &Path, what: &str) -> Result<String, CosimError> {
    let (ok, log) = run_unchecked(Path::new(ghdl), ghdl, args, dir)?;
    if ok {
        Ok(log)
    } else {
        let errors: Vec<&str> = log
            .lines()
            .filter(|l| !l.contains("warning") && !l.trim_start().starts_with('^'))
            .collect();
        Err(CosimError::Tool(ToolError::Failed {
            tool: ghdl.into(),
            what: what.into(),
            log: flexpmu_tools::runner::tail(&errors.join("\n"), 40),
        }))
    }
}
