// libsodium's public header; the module map exposes it to Swift as CSodium (Ed25519 for policy bundles).
#include <sodium.h>
