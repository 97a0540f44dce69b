//! A headless Chromium driven over the DevTools protocol, for the tests and the example that
//! open `report.html` (shared by path: `#[path = ".../tests/support/browser.rs"] mod browser;`).
//! Each browser gets a fresh profile folder and runs without any of Chromium's own network
//! services; every page records the requests it makes and what its console reports.

#![allow(dead_code)]

use std::io::ErrorKind;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

/// How long to wait for the browser to start, and for a page to load.
const PATIENCE: Duration = Duration::from_secs(60);

/// The Chromium binary: `$REUSESIM_CHROMIUM`, else `chromium` on the `PATH`; `None` when
/// neither exists.
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REUSESIM_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("chromium"))
        .find(|path| path.is_file())
}

/// A running headless Chromium and the protocol connection to it.
pub struct Browser {
    process: Child,
    socket: WebSocket<TcpStream>,
    next_id: u64,
    /// Events read while waiting for a reply, oldest first.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// What a page did while it loaded.
#[derive(Debug, Default)]
pub struct PageLog {
    /// Every URL the page requested, its own first.
    pub requests: Vec<String>,
    /// Console errors, uncaught exceptions and browser log errors (CSP violations among them).
    pub errors: Vec<String>,
}

/// An open page (a DevTools session on one tab).
pub struct Page {
    session: String,
}

impl Browser {
    /// Starts `chromium` headless with a fresh profile.
    ///
    /// # Panics
    /// When the browser does not start or cannot be reached.
    pub fn start(chromium: &Path) -> Self {
        let profile = tempfile::tempdir().unwrap();
        let process = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", chromium.display()));
        let (port, path) = wait_for_port_file(&profile.path().join("DevToolsActivePort"));
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let (socket, _) = tungstenite::client(format!("ws://127.0.0.1:{port}{path}"), stream)
            .unwrap_or_else(|error| panic!("cannot reach the browser's DevTools: {error}"));
        Self {
            process,
            socket,
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends `method` (to `session`, or to the browser) and returns its result.
    ///
    /// # Panics
    /// When the browser answers with an error.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::Text(message.to_string().into()))
            .unwrap();
        loop {
            let message = self.read();
            if message["id"] == json!(id) {
                assert!(
                    message.get("error").is_none(),
                    "{method} failed: {}",
                    message["error"]
                );
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    /// The next protocol message.
    fn read(&mut self) -> Value {
        loop {
            match self.socket.read() {
                Ok(Message::Text(text)) => return serde_json::from_str(text.as_str()).unwrap(),
                Ok(_) => {}
                Err(tungstenite::Error::Io(error)) if error.kind() == ErrorKind::WouldBlock => {
                    panic!("the browser did not answer within {PATIENCE:?}")
                }
                Err(error) => panic!("lost the browser: {error}"),
            }
        }
    }

    /// Opens `url` in a new tab and waits until it has loaded; returns the page and what it
    /// requested and reported while loading.
    pub fn open(&mut self, url: &str) -> (Page, PageLog) {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in [
            "Network.enable",
            "Runtime.enable",
            "Log.enable",
            "Page.enable",
        ] {
            self.call(Some(&session), domain, json!({}));
        }
        self.events.clear();
        self.call(Some(&session), "Page.navigate", json!({ "url": url }));
        let deadline = Instant::now() + PATIENCE;
        let mut log = PageLog::default();
        let mut seen = 0;
        loop {
            while seen < self.events.len() {
                let event = self.events[seen].clone();
                seen += 1;
                if event["sessionId"] != json!(session) {
                    continue;
                }
                if event["method"] == "Page.loadEventFired" {
                    // Let the page's script and any late request or message come in.
                    self.call(
                        Some(&session),
                        "Runtime.evaluate",
                        json!({ "expression": "new Promise(done => setTimeout(done, 300))",
                                "awaitPromise": true }),
                    );
                    log.record_all(&self.events[seen..], &session);
                    self.events.clear();
                    return (Page { session }, log);
                }
                log.record(&event);
            }
            assert!(Instant::now() < deadline, "{url} did not load");
            let event = self.read();
            self.events.push(event);
        }
    }

    /// Evaluates `expression` in `page` and returns its value (promises awaited).
    pub fn evaluate(&mut self, page: &Page, expression: &str) -> Value {
        let result = self.call(
            Some(&page.session),
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Moves the mouse pointer to (`x`, `y`) in the page's viewport.
    pub fn move_mouse(&mut self, page: &Page, x: f64, y: f64) {
        self.call(
            Some(&page.session),
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        );
    }

    /// A PNG of the page's viewport.
    pub fn screenshot(&mut self, page: &Page) -> Vec<u8> {
        use base64::Engine;
        let shot = self.call(
            Some(&page.session),
            "Page.captureScreenshot",
            json!({ "format": "png" }),
        );
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl PageLog {
    fn record_all(&mut self, events: &[Value], session: &str) {
        for event in events
            .iter()
            .filter(|event| event["sessionId"] == json!(session))
        {
            self.record(event);
        }
    }

    fn record(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Network.requestWillBeSent") => {
                self.requests
                    .push(params["request"]["url"].as_str().unwrap_or("").to_string());
            }
            Some("Runtime.consoleAPICalled") if params["type"] == "error" => {
                self.errors.push(format!("console: {}", params["args"]));
            }
            Some("Runtime.exceptionThrown") => {
                self.errors
                    .push(format!("exception: {}", params["exceptionDetails"]));
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                self.errors
                    .push(format!("log: {}", params["entry"]["text"]));
            }
            _ => {}
        }
    }
}

/// The port and path in Chromium's `DevToolsActivePort` file, once it is written.
fn wait_for_port_file(file: &Path) -> (u16, String) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return (port.parse().unwrap(), path.to_string());
            }
        }
        assert!(Instant::now() < deadline, "the browser did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
}
