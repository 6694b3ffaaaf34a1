#include "server/app/secrets.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include <array>
#include <cstdint>
#include <stdexcept>

namespace arbiter::server::app {

namespace {

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes() {
    std::array<std::uint8_t, N> bytes{};
    std::size_t filled = 0;
    while (filled < N) {
        const ssize_t got = getrandom(bytes.data() + filled, N - filled, 0);
        if (got < 0) {
            // getrandom only fails on EINTR once the pool is initialised; retry that, and treat
            // anything else as fatal rather than hand out a guessable token.
            if (errno == EINTR) {
                continue;
            }
            throw std::runtime_error("getrandom failed");
        }
        filled += static_cast<std::size_t>(got);
    }
    return bytes;
}

std::string to_hex(const std::uint8_t* bytes, std::size_t size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex(size * 2, '0');
    for (std::size_t i = 0; i < size; ++i) {
        hex[2 * i] = kDigits[bytes[i] >> 4];
        hex[2 * i + 1] = kDigits[bytes[i] & 0x0f];
    }
    return hex;
}

}  // namespace

std::string new_seat_token() {
    const auto bytes = random_bytes<16>();
    return to_hex(bytes.data(), bytes.size());
}

std::string new_game_id() {
    static constexpr std::string_view kAlphabet =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::string id;
    while (id.size() < 10) {
        for (std::uint8_t byte : random_bytes<16>()) {
            // Rejection sampling keeps every character equally likely: 248 = 4 * 62.
            if (byte < 248 && id.size() < 10) {
                id.push_back(kAlphabet[byte % 62]);
            }
        }
    }
    return id;
}

std::string sha256_hex(std::string_view bytes) {
    std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
    return to_hex(digest.data(), digest.size());
}

std::string token_hash(std::string_view token) {
    return sha256_hex(token);
}

bool same_hash(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace arbiter::server::app
