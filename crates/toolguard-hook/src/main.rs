fn main() {
    toolguard_hook::main()
}
