fn main() {
    eprintln!("kobana-mcp: not built yet");
    std::process::exit(2);
}
