/// The command-line flag a listener kind brings to set its address (`--proxy-listen
/// HOST:PORT`), declared with the kind (``ListenerKind/flag``): `serve` derives its option,
/// help, man page and completions from it.
package struct ListenFlag: Sendable, Equatable {
    /// The long name without its dashes (`proxy-listen`).
    package let name: String
    /// One sentence for help and the man page.
    package let help: String

    /// `--name`, as typed and as clash and resolution messages name it.
    package var spelling: String { "--" + name }

    /// The flag `--name` with its help.
    package init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }

    /// The flags of the registered listener kinds (``ListenerKind/all``), in registration order.
    package static let registered = ListenerKind.all.compactMap(\.flag)
}
