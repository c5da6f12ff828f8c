//! One viewer under test: its own Xvfb server, the real `softpick view`
//! binary in it, xdotool for the pointer and keys, ImageMagick's `import`
//! for screenshots, and the viewer's stdout and stderr as line channels.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use softpick::internals::read_png;

use crate::expect::{View, H, W};

/// The tools a session runs, and the Debian packages that have them.
const TOOLS: [&str; 3] = ["Xvfb", "xdotool", "import"];
const PACKAGES: &str = "xvfb xdotool imagemagick";

/// Scenarios run one at a time: each drives a window with timed pointer and
/// key input, and the waits in [`Viewer::drag`] are sized for one viewer on
/// the machine, not several competing for it.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Stops and reaps a child process when dropped (also on panic): SIGTERM
/// first, so Xvfb removes its lock file and socket, then SIGKILL.
struct Reaper(Option<Child>);

impl Reaper {
    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("the process is still owned")
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        let Some(mut c) = self.0.take() else { return };
        if let Ok(None) = c.try_wait() {
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .stderr(Stdio::null())
                .status();
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(3) {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
        }
        let _ = c.wait();
    }
}

fn on_path(cmd: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            let f = d.join(cmd);
            f.is_file()
                && std::fs::metadata(&f).is_ok_and(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.permissions().mode() & 0o111 != 0
                })
        })
    })
}

/// Panics naming the tools that are missing (the scenarios are
/// `#[ignore = "needs …"]`: run with `--include-ignored`, they fail, never
/// pass, without their tools).
fn require_tools() {
    let missing: Vec<&str> = TOOLS.into_iter().filter(|c| !on_path(c)).collect();
    assert!(
        missing.is_empty(),
        "the viewer end-to-end test needs {missing:?}, which are not on PATH \
         (apt-get install {PACKAGES}, plus libx11-6 libxcursor1 that minifb loads at run time)"
    );
}

fn lines_of(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

/// Starts Xvfb on a display number it chooses itself (`-displayfd`, so
/// parallel runs never race for one); returns the number and the guard.
///
/// `-noreset`: by default the server resets when its last client leaves,
/// and a client connecting during that reset gets no display (xorg/xserver
/// issue 1102). The readiness check below is such a last client, and the
/// viewer connects right after it.
fn start_xvfb() -> (u32, Reaper) {
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
            "-noreset",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start Xvfb");
    let stdout = child.stdout.take().unwrap();
    let guard = Reaper(Some(child));
    let rx = lines_of(stdout);
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("Xvfb did not report its display within 20 s");
    let n: u32 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("Xvfb -displayfd printed {line:?}"));
    // the server is ready once it has written the number; check anyway
    let t0 = Instant::now();
    loop {
        let ok = Command::new("xdotool")
            .arg("getdisplaygeometry")
            .env("DISPLAY", format!(":{n}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return (n, guard);
        }
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "Xvfb :{n} does not answer"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A running `softpick view` on the test view's camera, in its own X server.
///
/// Fields drop in order: the viewer, then its server, then the turn.
pub struct Viewer {
    viewer: Reaper,
    _xvfb: Reaper,
    display: u32,
    wid: String,
    out: Receiver<String>,
    err: Receiver<String>,
    _turn: MutexGuard<'static, ()>,
}

impl Viewer {
    /// Starts the viewer on `view` (its camera file, `--size 320x240`, its
    /// directory as the working directory), waits for the window, checks its
    /// size and focuses it. Panics naming the tools when they are missing.
    pub fn start(view: &View) -> Viewer {
        let camera = view.camera_file.to_string_lossy().into_owned();
        Viewer::start_with(&["--camera", &camera], &view.dir)
    }

    /// Starts `softpick view --size WxH` with the further arguments `args`
    /// in `dir` (see [`Viewer::start`]).
    pub fn start_with(args: &[&str], dir: &Path) -> Viewer {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
        require_tools();
        let (display, xvfb) = start_xvfb();
        let child = Command::new(env!("CARGO_BIN_EXE_softpick"))
            .args(["view", "--size", &format!("{W}x{H}")])
            .args(args)
            .current_dir(dir)
            .env("DISPLAY", format!(":{display}"))
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start softpick view");
        let mut viewer = Reaper(Some(child));
        let out = lines_of(viewer.child().stdout.take().unwrap());
        let err = lines_of(viewer.child().stderr.take().unwrap());
        let mut v = Viewer {
            viewer,
            _xvfb: xvfb,
            display,
            wid: String::new(),
            out,
            err,
            _turn: turn,
        };
        v.wid = v.wait_window();
        let geo = v.xdotool(&["getwindowgeometry", "--shell", &v.wid]);
        assert!(
            geo.contains(&format!("WIDTH={W}")) && geo.contains(&format!("HEIGHT={H}")),
            "window is not {W}x{H}: {geo}"
        );
        // give the first image a moment to be shown, then focus for the keys
        std::thread::sleep(Duration::from_millis(300));
        v.xdotool(&["windowfocus", "--sync", &v.wid]);
        v
    }

    fn xdotool<S: AsRef<str>>(&self, args: &[S]) -> String {
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let out = Command::new("xdotool")
            .args(&args)
            .env("DISPLAY", format!(":{}", self.display))
            .output()
            .expect("cannot run xdotool");
        assert!(
            out.status.success(),
            "xdotool {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The viewer's window id, waiting for it to be mapped.
    fn wait_window(&mut self) -> String {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(st)) = self.viewer.child().try_wait() {
                let err: Vec<String> = self.err.try_iter().collect();
                panic!("the viewer exited early ({st}): {}", err.join("\n"));
            }
            let out = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "^softpick"])
                .env("DISPLAY", format!(":{}", self.display))
                .output()
                .expect("cannot run xdotool");
            let s = String::from_utf8_lossy(&out.stdout);
            if let Some(id) = s.split_whitespace().next() {
                return id.to_string();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("no viewer window appeared within 30 s");
    }

    /// `xdotool mousemove --window` arguments to window pixel (x, y).
    fn move_args(&self, (x, y): (u32, u32)) -> Vec<String> {
        vec![
            "mousemove".into(),
            "--window".into(),
            self.wid.clone(),
            x.to_string(),
            y.to_string(),
        ]
    }

    /// Moves the pointer to window pixel (x, y).
    pub fn move_to(&self, p: (u32, u32)) {
        self.xdotool(&self.move_args(p));
    }

    /// A left click at window pixel (x, y): press, 0.1 s, release.
    pub fn click(&self, p: (u32, u32)) {
        let mut args = self.move_args(p);
        args.extend(["mousedown", "1", "sleep", "0.1", "mouseup", "1"].map(String::from));
        self.xdotool(&args);
    }

    /// Presses and releases a key (an X keysym name: `m`, `Escape`).
    pub fn key(&self, name: &str) {
        self.xdotool(&["key", name]);
    }

    /// Holds a key down (`down`) or lets it go. The viewer takes its
    /// modifiers from key events and handles a poll's key events before its
    /// pointer state, so a key change and a button change that fall into
    /// one poll count as if the key came first. Waiting before and after
    /// gives each its own poll: the pointer's last change (a release that
    /// must see Ctrl still held) is seen before the key changes, and the key
    /// change before the pointer does anything else.
    pub fn hold(&self, name: &str, down: bool) {
        std::thread::sleep(Duration::from_millis(150));
        self.xdotool(&[if down { "keydown" } else { "keyup" }, name]);
        std::thread::sleep(Duration::from_millis(150));
    }

    /// A left drag along `path`: press at its first point, move through the
    /// others in steps of at most 10 pixels, release at the last.
    ///
    /// The viewer sees the buttons only when it polls and starts a box or
    /// lasso at the pointer of the poll after the one that saw the press:
    /// the drag waits generously before leaving the first point (a loaded
    /// machine may not run the viewer for a while), and at every corner and
    /// at the end, where a box ends and a lasso turns.
    pub fn drag(&self, path: &[(u32, u32)]) {
        let mut args = self.move_args(path[0]);
        args.extend(["mousedown", "1", "sleep", "0.2"].map(String::from));
        for w in path.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = (f64::from(b.0) - f64::from(a.0)).hypot(f64::from(b.1) - f64::from(a.1));
            let steps = (len / 10.0).ceil().max(1.0) as u32;
            for i in 1..=steps {
                let t = |p: u32, q: u32| {
                    (f64::from(p) + (f64::from(q) - f64::from(p)) * f64::from(i) / f64::from(steps))
                        .round() as u32
                };
                args.extend(self.move_args((t(a.0, b.0), t(a.1, b.1))));
                let pause = if i == steps { "0.1" } else { "0.03" };
                args.extend(["sleep", pause].map(String::from));
            }
        }
        args.extend(["mouseup", "1"].map(String::from));
        self.xdotool(&args);
    }

    /// The next stdout line starting with `prefix` (others are skipped),
    /// within 10 s; `what` names the input it answers.
    pub fn line(&self, prefix: &str, what: &str) -> String {
        let t0 = Instant::now();
        let mut skipped = Vec::new();
        while let Some(left) = Duration::from_secs(10).checked_sub(t0.elapsed()) {
            match self.out.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return l,
                Ok(l) => skipped.push(l),
                Err(_) => break,
            }
        }
        panic!("no `{prefix}` line for {what} within 10 s; other lines: {skipped:?}");
    }

    /// The next stdout line, whatever it is, within `secs` seconds; `what`
    /// names what is awaited.
    pub fn next_line(&self, secs: u64, what: &str) -> String {
        self.out
            .recv_timeout(Duration::from_secs(secs))
            .unwrap_or_else(|_| panic!("no stdout line within {secs} s while waiting for {what}"))
    }

    /// A screenshot of the window, saved at `path` (row-major 0x00RRGGBB).
    pub fn screenshot(&self, path: &Path) -> Vec<u32> {
        let st = Command::new("import")
            .args(["-window", &self.wid])
            .arg(format!("png:{}", path.display()))
            .env("DISPLAY", format!(":{}", self.display))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("cannot run import");
        assert!(st.success(), "import -window {} failed", self.wid);
        let (w, h, px) = read_png(path).expect("screenshot PNG");
        assert_eq!((w, h), (W, H), "screenshot size");
        px
    }

    /// Screenshots until one satisfies `ok` or 5 s have passed (the viewer
    /// shows a change at its next poll, the X server a moment later);
    /// returns the last.
    pub fn settled_screenshot(&self, path: &Path, ok: impl Fn(&[u32]) -> bool) -> Vec<u32> {
        let t0 = Instant::now();
        loop {
            let px = self.screenshot(path);
            if ok(&px) || t0.elapsed() > Duration::from_secs(5) {
                return px;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `Esc`: the viewer must exit within 5 s, successfully.
    pub fn quit(mut self) {
        self.key("Escape");
        let t0 = Instant::now();
        let status = loop {
            if let Some(st) = self.viewer.child().try_wait().unwrap() {
                break st;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(5),
                "the viewer did not exit within 5 s of Esc"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let errs: Vec<String> = self.err.try_iter().collect();
        assert!(status.success(), "exit status {status}; stderr: {errs:?}");
    }
}
