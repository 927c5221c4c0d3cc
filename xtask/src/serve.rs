//! A small static file server for `www/` on 127.0.0.1 (std only): GET and HEAD, correct
//! MIME types (browsers refuse `WebAssembly.instantiateStreaming` without
//! `application/wasm`), no paths outside the root, and `Cache-Control: no-cache` so a
//! rebuilt page is never served stale.
use crate::shell::Result;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

/// Binds `127.0.0.1:port` (0 = any free port) and serves `root` from a background thread.
/// Returns the bound address; the server lives until the process exits.
pub fn start(root: &Path, port: u16) -> Result<SocketAddr> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let root = root
        .canonicalize()
        .map_err(|e| format!("serving {}: {e}", root.display()))?;
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            thread::spawn(move || {
                let _ = handle(stream, &root);
            });
        }
    });
    Ok(addr)
}

/// Serves until the process is stopped (Ctrl-C).
pub fn serve_forever(root: &Path, port: u16) -> Result<()> {
    let addr = start(root, port)?;
    println!(
        "serving {} at http://{addr}/  (Ctrl-C to stop)",
        root.display()
    );
    loop {
        thread::park();
    }
}

fn handle(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain headers; we use none of them.
    let mut line = String::new();
    let mut header_bytes = 0usize;
    loop {
        line.clear();
        let n = reader.read_line(&mut line)?;
        header_bytes += n;
        if n == 0 || line == "\r\n" || line == "\n" || header_bytes > 64 * 1024 {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut out = stream;
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut out,
            405,
            "text/plain; charset=utf-8",
            b"method not allowed\n",
            true,
        );
    }
    let head_only = method == "HEAD";
    let Some(path) = resolve(root, target) else {
        return respond(
            &mut out,
            404,
            "text/plain; charset=utf-8",
            b"not found\n",
            !head_only,
        );
    };
    match std::fs::read(&path) {
        Ok(body) => respond(&mut out, 200, mime_type(&path), &body, !head_only),
        Err(_) => respond(
            &mut out,
            404,
            "text/plain; charset=utf-8",
            b"not found\n",
            !head_only,
        ),
    }
}

fn respond(
    out: &mut TcpStream,
    code: u16,
    mime: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let reason = match code {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    if with_body {
        out.write_all(body)?;
    }
    out.flush()
}

/// Maps a request target to a file under `root`, or `None` for anything that could
/// escape it: `..` segments, backslashes, NUL, hidden files, or symlinks leading out.
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(path)?;
    if decoded.contains('\\') || decoded.contains('\0') {
        return None;
    }
    let mut file = root.to_path_buf();
    for seg in decoded.split('/').filter(|s| !s.is_empty()) {
        if seg.starts_with('.') {
            return None; // "..", ".", and dotfiles
        }
        file.push(seg);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let real = file.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Content type by extension; unknown files are served as bytes.
pub fn mime_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A served folder of its own per test: tests run on parallel threads, and one test
    /// rewriting the files another is serving made the HTTP test flaky.
    fn temp_root(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-serve-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
        std::fs::write(dir.join("pkg/m.wasm"), [0u8, 97, 115, 109]).unwrap();
        std::fs::write(dir.join(".secret"), "x").unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn resolve_rejects_paths_outside_the_root() {
        let root = temp_root("paths");
        assert_eq!(resolve(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            resolve(&root, "/pkg/m.wasm?v=1"),
            Some(root.join("pkg/m.wasm"))
        );
        assert_eq!(
            resolve(&root, "/pkg/%6D.wasm"),
            Some(root.join("pkg/m.wasm"))
        );
        for bad in [
            "/../etc/passwd",
            "/pkg/../../x",
            "/%2e%2e/x",
            "/.secret",
            "/a\\b",
            "pkg/m.wasm",
            "/%zz",
        ] {
            assert_eq!(resolve(&root, bad), None, "{bad}");
        }
    }

    #[test]
    fn mime_types_that_browsers_check() {
        assert_eq!(mime_type(Path::new("a/b.wasm")), "application/wasm");
        assert_eq!(
            mime_type(Path::new("x.mjs")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(mime_type(Path::new("x.css")), "text/css; charset=utf-8");
        assert_eq!(mime_type(Path::new("x.bin")), "application/octet-stream");
    }

    #[test]
    fn serves_a_file_over_http() {
        let root = temp_root("http");
        let addr = start(&root, 0).unwrap();
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /pkg/m.wasm HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut resp = Vec::new();
        s.read_to_end(&mut resp).unwrap();
        let text = String::from_utf8_lossy(&resp);
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Type: application/wasm\r\n"));
        assert!(resp.ends_with(&[0u8, 97, 115, 109]));
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /../Cargo.toml HTTP/1.1\r\n\r\n").unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        assert!(resp.starts_with("HTTP/1.1 404"), "{resp}");
    }
}
