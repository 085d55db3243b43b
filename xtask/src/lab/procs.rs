//! The lab's processes: started detached (their own process group, output to a log file) so
//! `lab up` can return while they run, each recorded in the pid file as it starts, and stopped
//! by those ids alone, never by name: another lab, or anything else on the machine, is safe.

use std::io::Write as _;
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One started process, as the pid file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    pub name: String,
    /// The binary it runs: `down` checks it before signalling, so a pid the kernel gave to
    /// another program since is left alone.
    pub exe: PathBuf,
}

/// The pid file: one `<pid> <name> <exe>` line per process, in start order.
pub fn pid_file(lab: &Path) -> PathBuf {
    lab.join("pids")
}

pub fn read(lab: &Path) -> Vec<Proc> {
    let text = std::fs::read_to_string(pid_file(lab)).unwrap_or_default();
    text.lines().filter_map(parse).collect()
}

fn parse(line: &str) -> Option<Proc> {
    let mut parts = line.splitn(3, ' ');
    Some(Proc {
        pid: parts.next()?.parse().ok()?,
        name: parts.next()?.to_string(),
        exe: PathBuf::from(parts.next()?),
    })
}

/// A free port on 127.0.0.1, asked of the kernel: two labs (two checkouts) never collide.
pub fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Start `exe args…` detached, its output in `<lab>/logs/<name>.log`, and record it.
pub fn start(lab: &Path, name: &str, exe: &Path, args: &[String]) -> Result<Proc, String> {
    start_with(lab, name, exe, args, &[])
}

/// [`start`] with environment variables (the controllers read `KUBECONFIG`).
pub fn start_with(
    lab: &Path,
    name: &str,
    exe: &Path,
    args: &[String],
    env: &[(&str, PathBuf)],
) -> Result<Proc, String> {
    // The path /proc/<pid>/exe will show, links resolved, for `alive` to compare.
    let exe = &exe
        .canonicalize()
        .map_err(|e| format!("{name}: {}: {e}", exe.display()))?;
    let logs = lab.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    let log = std::fs::File::create(logs.join(format!("{name}.log"))).map_err(|e| e.to_string())?;
    let err = log.try_clone().map_err(|e| e.to_string())?;
    // Its own process group: a Ctrl-C in the terminal that ran `lab up` does not reach it.
    let child = Command::new(exe)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(lab)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("{name}: {}: {e}", exe.display()))?;
    let p = Proc {
        pid: child.id(),
        name: name.to_string(),
        exe: exe.to_path_buf(),
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(pid_file(lab))
        .map_err(|e| e.to_string())?;
    writeln!(f, "{} {} {}", p.pid, p.name, p.exe.display()).map_err(|e| e.to_string())?;
    eprintln!("==> lab: started {name} (pid {})", p.pid);
    Ok(p)
}

/// Whether `p` still runs the binary it was started with (a zombie or a reused pid does not).
pub fn alive(p: &Proc) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", p.pid)).unwrap_or_default();
    let zombie = stat
        .rsplit_once(')')
        .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
    let exe = std::fs::read_link(format!("/proc/{}/exe", p.pid)).ok();
    // A binary rebuilt while it runs shows as "<path> (deleted)": still ours.
    let exe = exe.map(|e| {
        e.to_string_lossy()
            .trim_end_matches(" (deleted)")
            .to_string()
    });
    !zombie && exe.as_deref() == Some(&*p.exe.to_string_lossy())
}

fn signal(p: &Proc, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, &p.pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// Stop every recorded process, last started first (kwok and the controllers before the API
/// server, the API server before etcd): TERM, then KILL after 10 s. Removes the pid file.
pub fn stop_all(lab: &Path) -> Result<(), String> {
    for p in read(lab).iter().rev() {
        if !alive(p) {
            continue;
        }
        signal(p, "-TERM");
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(p) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        if alive(p) {
            signal(p, "-KILL");
        }
        eprintln!("==> lab: stopped {} (pid {})", p.name, p.pid);
    }
    match std::fs::remove_file(pid_file(lab)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// Poll `ready` every 250 ms until it holds, `p` dies (an error quoting its log) or `secs`
/// pass. Generous limits: the 2 cores are shared, and a loaded machine starts slowly.
pub fn wait(
    lab: &Path,
    p: &Proc,
    what: &str,
    secs: u64,
    mut ready: impl FnMut() -> bool,
) -> Result<(), String> {
    let start = Instant::now();
    loop {
        if ready() {
            eprintln!("    {what}: {:.1} s", start.elapsed().as_secs_f64());
            return Ok(());
        }
        if !alive(p) {
            return Err(format!(
                "{} exited before {what}:\n{}",
                p.name,
                log_tail(lab, &p.name)
            ));
        }
        if start.elapsed() > Duration::from_secs(secs) {
            return Err(format!(
                "{what}: not after {secs} s\n{}",
                log_tail(lab, &p.name)
            ));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The last lines of a process's log, for an error message.
pub fn log_tail(lab: &Path, name: &str) -> String {
    let path = lab.join("logs").join(format!("{name}.log"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(20);
    format!("({}):\n{}", path.display(), lines[from..].join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_lines_round_trip_with_spaces_in_the_path() {
        let p = parse("42 kube-apiserver /home/a b/bin/kube-apiserver").unwrap();
        assert_eq!(p.pid, 42);
        assert_eq!(p.name, "kube-apiserver");
        assert_eq!(p.exe, PathBuf::from("/home/a b/bin/kube-apiserver"));
        assert!(parse("x y").is_none());
    }

    #[test]
    fn a_pid_running_another_binary_is_not_ours() {
        let me = Proc {
            pid: std::process::id(),
            name: "xtask".into(),
            exe: std::env::current_exe().unwrap(),
        };
        assert!(alive(&me));
        let other = Proc {
            exe: PathBuf::from("/usr/bin/etcd"),
            ..me
        };
        assert!(!alive(&other));
    }
}
