//! {{name}}: a Sushi Go! bot written in Rust.
//!
//! The arena starts this program once per game, in its folder, and talks JSON lines on its
//! stdin and stdout (docs/bots.md, "Any language"; INTERFACES.md has the contract):
//!   {"type": "new_game", "obs": OBS, "seed": N}   once, before the first pick
//!   {"type": "pick", "obs": OBS}                  answer one line: {"pick": "tempura"}
//!                                                 or {"pick": ["wasabi", "squid_nigiri"]}
//!   {"type": "end_game", "result": RESULT}        no answer; then stdin ends
//! Anything else on stdout is a protocol fault: print your debugging with eprintln! (the
//! bot's log).
//!
//! This starter picks greedily, as `arena new-bot` writes a Python bot: each card's rough
//! worth for the cards already in front of it, ties broken by its own random draws (seeded by
//! new_game's seed, so games replay the same). It uses no crate (serde would need the
//! network to fetch): the small JSON reader below reads any JSON the arena sends.
//!
//! Build: cargo build --release --offline && cp target/release/{{name}} .

use std::io::{self, BufRead, Write};

/// A JSON value (numbers kept as their text: a seed may not fit in an f64).
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> Option<&str> {
        if let Json::Str(s) = self { Some(s) } else { None }
    }
    fn list(&self) -> &[Json] {
        if let Json::Arr(items) = self { items } else { &[] }
    }
    fn strings(&self) -> Vec<String> {
        self.list().iter().filter_map(|v| v.str().map(String::from)).collect()
    }
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn ws(&mut self) {
        while self.at < self.text.len() && b" \t\r\n".contains(&self.text[self.at]) {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.text.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", c as char, self.at))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.text.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut pairs = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Obj(pairs));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    pairs.push((key, self.value()?));
                    self.ws();
                    if self.text.get(self.at) == Some(&b',') { self.at += 1; } else { break; }
                }
                self.eat(b'}')?;
                Ok(Json::Obj(pairs))
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    if self.text.get(self.at) == Some(&b',') { self.at += 1; } else { break; }
                }
                self.eat(b']')?;
                Ok(Json::Arr(items))
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(_) => {
                let start = self.at;
                while self.at < self.text.len() && !b",]} \t\r\n".contains(&self.text[self.at]) {
                    self.at += 1;
                }
                let word = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
                match word.as_str() {
                    "null" => Ok(Json::Null),
                    "true" => Ok(Json::Bool(true)),
                    "false" => Ok(Json::Bool(false)),
                    _ if word.parse::<f64>().is_ok() => Ok(Json::Num(word)),
                    _ => Err(format!("unexpected {:?}", word)),
                }
            }
            None => Err("unexpected end of line".into()),
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        while let Some(&c) = self.text.get(self.at) {
            self.at += 1;
            match c {
                b'"' => return Ok(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let e = *self.text.get(self.at).ok_or("unfinished escape")?;
                    self.at += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.text.get(self.at..self.at + 4).ok_or("bad \\u")?;
                            let code = u32::from_str_radix(&String::from_utf8_lossy(hex), 16)
                                .map_err(|e| e.to_string())?;
                            self.at += 4;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        Err("unfinished string".into())
    }
}

fn parse(line: &str) -> Result<Json, String> {
    let mut reader = Reader { text: line.as_bytes(), at: 0 };
    reader.value()
}

/// xorshift64: reproducible random draws, seeded by new_game.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn nigiri(card: &str) -> i32 {
    match card {
        "egg_nigiri" => 1,
        "salmon_nigiri" => 2,
        "squid_nigiri" => 3,
        _ => 0,
    }
}

/// A rough worth of `card` for my cards of this round (`mine`).
fn value(card: &str, mine: &[String], picks_left: i32) -> i32 {
    const DUMPLING_POINTS: [i32; 6] = [0, 1, 3, 6, 10, 15];
    let count = |name: &str| mine.iter().filter(|c| *c == name).count() as i32;
    match card {
        "tempura" => if count("tempura") % 2 == 1 { 5 } else { 2 },
        "sashimi" => if count("sashimi") % 3 == 2 { 10 } else if picks_left >= 2 { 3 } else { 0 },
        "dumpling" => {
            let n = count("dumpling").min(4) as usize;
            DUMPLING_POINTS[n + 1] - DUMPLING_POINTS[n]
        }
        "wasabi" => if picks_left >= 3 { 3 } else { 0 },
        "maki1" | "maki2" | "maki3" => card[4..].parse().unwrap_or(0), // roll icons
        "pudding" => 2,
        _ if nigiri(card) > 0 => {
            let placed = mine.iter().filter(|c| nigiri(c) > 0).count() as i32;
            nigiri(card) * if count("wasabi") > placed { 3 } else { 1 }
        }
        _ => 0, // chopsticks, soy_sauce: worth nothing in this simple bot
    }
}

/// The answer to a pick: one line of JSON.
fn pick(obs: &Json, rng: &mut Rng) -> String {
    let hand = obs.get("hand").map(Json::strings).unwrap_or_default();
    let seat = match obs.get("seat") {
        Some(Json::Num(n)) => n.parse::<usize>().unwrap_or(0),
        _ => 0,
    };
    let mut mine = obs.get("tableaux").and_then(|t| t.list().get(seat))
        .map(Json::strings).unwrap_or_default();
    let picks_left = hand.len() as i32 - 1;
    // Distinct cards in hand order, best first; random draws break ties.
    let mut kinds: Vec<(f64, &String)> = Vec::new();
    for card in &hand {
        if kinds.iter().all(|(_, c)| *c != card) {
            kinds.push((value(card, &mine, picks_left) as f64 + rng.next(), card));
        }
    }
    kinds.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = kinds[0].1;
    let chopsticks = matches!(obs.get("can_use_chopsticks"), Some(Json::Bool(true)));
    if chopsticks && kinds.len() > 1 {
        let second = kinds[1].1;
        mine.push(best.clone());
        if value(second, &mine, picks_left - 1) >= 5 {
            return format!("{{\"pick\": [\"{}\", \"{}\"]}}", best, second);
        }
    }
    format!("{{\"pick\": \"{}\"}}", best)
}

fn main() {
    let mut rng = Rng(88172645463325252);
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line.expect("reading stdin");
        let message = match parse(&line) {
            Ok(message) => message,
            Err(err) => {
                eprintln!("cannot read the message ({}): {:.80}", err, line);
                std::process::exit(1);
            }
        };
        match message.get("type").and_then(Json::str) {
            Some("new_game") => {
                if let Some(Json::Num(seed)) = message.get("seed") {
                    // Any integer: its digits folded into 64 bits (never 0, xorshift's fixed point).
                    let folded = seed.bytes().filter(u8::is_ascii_digit)
                        .fold(0u64, |s, d| s.wrapping_mul(10).wrapping_add((d - b'0') as u64));
                    rng = Rng(if folded == 0 { 88172645463325252 } else { folded });
                }
            }
            Some("pick") => {
                let obs = message.get("obs").expect("a pick's obs");
                writeln!(out, "{}", pick(obs, &mut rng)).expect("writing stdout");
                out.flush().expect("writing stdout"); // the arena waits for this line
            }
            _ => {} // end_game: nothing to answer
        }
    }
}
