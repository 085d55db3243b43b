//! The lab's certificates, made with Debian's `openssl` on every `up` (ECDSA P-256: fast to
//! make, and Go, rustls and kubectl all take it), and the kubeconfigs that carry them.

use crate::output;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The client identity `kubeconfig-layer` uses, bound to the role `kubectl layer rbac` prints.
pub const LAYER_USER: &str = "kubectl-layer-lab-reader";
/// The aggregation layer's client (front proxy) name, the only one allowed to assert users.
pub const FRONT_PROXY: &str = "front-proxy-client";

/// The API server's names: loopback, and the in-cluster names of the `kubernetes` Service
/// (data only; nothing dials them).
const APISERVER_SANS: &str = "IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,\
DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.96.0.1";

/// Make every certificate and key of a fresh lab in `dir`.
pub fn make(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    quiet(
        openssl(dir)
            .args([
                "-x509", "-days", "3650", "-keyout", "ca.key", "-out", "ca.crt",
            ])
            .args(["-subj", "/CN=kubectl-layer-lab-ca"]),
    )?;
    leaf(
        dir,
        "apiserver",
        "/CN=kube-apiserver",
        "serverAuth",
        Some(APISERVER_SANS),
    )?;
    leaf(
        dir,
        "admin",
        "/O=system:masters/CN=kubectl-layer-lab-admin",
        "clientAuth",
        None,
    )?;
    leaf(
        dir,
        "layer",
        &format!("/CN={LAYER_USER}"),
        "clientAuth",
        None,
    )?;
    leaf(
        dir,
        "front-proxy",
        &format!("/CN={FRONT_PROXY}"),
        "clientAuth",
        None,
    )?;
    // What the full tier's controllers serve their webhooks with (the API server calls them at
    // https://127.0.0.1:<port>).
    leaf(
        dir,
        "webhook",
        "/CN=lab-webhooks",
        "serverAuth",
        Some("IP:127.0.0.1,DNS:localhost"),
    )?;
    // The service-account token signing pair (kube-apiserver signs, everyone verifies).
    quiet(
        Command::new("openssl")
            .current_dir(dir)
            .args([
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
            ])
            .args(["-out", "sa.key"]),
    )?;
    quiet(
        Command::new("openssl")
            .current_dir(dir)
            .args(["pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub"]),
    )
}

/// Run openssl, its chatter kept unless it fails.
fn quiet(cmd: &mut Command) -> Result<(), String> {
    output(cmd, "openssl").map(|_| ())
}

/// `openssl req` with a new P-256 key and no passphrase, quiet.
fn openssl(dir: &Path) -> Command {
    let mut c = Command::new("openssl");
    c.current_dir(dir)
        .args([
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-batch"]);
    c
}

/// A certificate `name.crt` (key `name.key`) signed by the lab's CA.
fn leaf(
    dir: &Path,
    name: &str,
    subject: &str,
    usage: &str,
    sans: Option<&str>,
) -> Result<(), String> {
    let mut cmd = openssl(dir);
    cmd.args(["-x509", "-days", "365", "-CA", "ca.crt", "-CAkey", "ca.key"])
        .args([
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
        ])
        .args(["-subj", subject])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .args(["-addext", "keyUsage=critical,digitalSignature"])
        .args(["-addext", &format!("extendedKeyUsage={usage}")]);
    if let Some(sans) = sans {
        cmd.args(["-addext", &format!("subjectAltName={sans}")]);
    }
    quiet(&mut cmd)
}

/// A kubeconfig for `user` (its `user.crt`/`user.key` in `pki`) with everything embedded, so
/// it can be copied anywhere and read by any client.
pub fn kubeconfig(pki: &Path, user: &str, server: &str, out: &Path) -> Result<(), String> {
    let data = |f: &str| -> Result<String, String> {
        let path: PathBuf = pki.join(f);
        std::fs::read(&path)
            .map(|b| base64(&b))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let text = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: {server}
    certificate-authority-data: {ca}
users:
- name: {user}
  user:
    client-certificate-data: {crt}
    client-key-data: {key}
contexts:
- name: lab
  context:
    cluster: lab
    user: {user}
    namespace: default
current-context: lab
",
        ca = data("ca.crt")?,
        crt = data(&format!("{user}.crt"))?,
        key = data(&format!("{user}.key"))?,
    );
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}

/// Standard base64 with padding (the kubeconfig's `*-data` fields).
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), coded);
        }
    }
}
