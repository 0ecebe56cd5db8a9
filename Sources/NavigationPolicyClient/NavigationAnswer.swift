public import NavigationPolicy

/// What the web view does with a decision, as a plain enum each platform switches on
/// (`WKNavigationDelegate` on iOS, `shouldOverrideUrlLoading` on Android).
///
/// The built-in handler types each name their action (`logout`, `show-about`,
/// `open-external`, `block`); a `cancel` handler may name its own, which arrives as
/// ``NativeAction/custom(action:location:)``. Every case but ``allow`` cancels the navigation.
public enum NavigationAnswer: Sendable, Equatable {
    /// Let the web view load the URL (`.allow`; `shouldOverrideUrlLoading` returns false).
    case allow
    /// Cancel the navigation (`.cancel`; `shouldOverrideUrlLoading` returns true), then run
    /// the native action.
    case cancel(NativeAction)

    /// What the app does natively after cancelling.
    public enum NativeAction: Sendable, Equatable {
        /// Nothing more: the navigation is blocked (a `cancel` handler's default `block`, or a
        /// request the client could not decide).
        case none
        /// Log the user out natively (`logout` handler).
        case logout
        /// Show the native About screen (`about` handler).
        case showAbout
        /// Open `url` outside the web view: `SFSafariViewController` on iOS, a Custom Tab on
        /// Android (`payment-redirect` handler). Always an `http:` or `https:` URL.
        case openExternally(url: String)
        /// An action the app defines in its policy (`"action"` of a `cancel` handler), with the
        /// handler's location when it has one. Apps that do not know the action treat it as ``none``.
        case custom(action: String, location: String?)
    }

    /// Maps a decision to the web view's answer. Fails closed: an `open-external` without an
    /// `http`/`https` target (only a misconfigured policy produces one) cancels with no action,
    /// because handing an arbitrary scheme to the system opens other apps.
    public init(_ decision: Decision) {
        guard decision.verdict == .cancel else {
            self = .allow
            return
        }
        switch decision.action {
        case nil, "block": self = .cancel(.none)
        case "logout": self = .cancel(.logout)
        case "show-about": self = .cancel(.showAbout)
        case "open-external":
            let target = decision.location ?? decision.url
            self = Self.isWebURL(target) ? .cancel(.openExternally(url: target)) : .cancel(.none)
        case let action?: self = .cancel(.custom(action: action, location: decision.location))
        }
    }

    /// `http:` or `https:` (any case), as `SFSafariViewController` requires.
    static func isWebURL(_ text: String) -> Bool {
        let lowered = text.prefix(8).lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }
}
