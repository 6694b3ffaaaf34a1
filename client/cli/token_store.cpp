// The token file is rewritten whole through a temporary file and rename(), created with mode
// 0600 so that no other user can read a token at any moment.
#include "client/cli/token_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace arbiter::client {
namespace {

using nlohmann::json;

constexpr const char* kSessionKey = "@session";

json read_all(const std::string& path) {
    std::ifstream file(path);
    if (!file) {
        return json::object();
    }
    std::stringstream text;
    text << file.rdbuf();
    json parsed = json::parse(text.str(), nullptr, false);
    return parsed.is_object() ? parsed : json::object();
}

}  // namespace

TokenStore::TokenStore(std::string path) : path_(std::move(path)) {}

Expected<TokenStore, std::string> TokenStore::from_environment() {
    const char* config = std::getenv("XDG_CONFIG_HOME");
    if (config != nullptr && config[0] == '/') {
        return TokenStore(std::string(config) + "/arbiter/tokens.json");
    }
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] != '\0') {
        return TokenStore(std::string(home) + "/.config/arbiter/tokens.json");
    }
    return unexpected(std::string("neither XDG_CONFIG_HOME nor HOME is set: cannot keep tokens"));
}

template <class Change>
Expected<void, std::string> TokenStore::update(Change&& change) const {
    const std::filesystem::path file(path_);
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) {
        return unexpected("cannot create " + file.parent_path().string() + ": " + error.message());
    }
    ::chmod(file.parent_path().c_str(), 0700);
    // Another session (a game in another terminal) may be saving too: reading, adding and
    // writing back is done under an exclusive lock, or one of the two changes would be lost.
    const std::string lock_path = path_ + ".lock";
    const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) {
        return unexpected("cannot open " + lock_path + ": " + std::strerror(errno));
    }
    // A file system without locks (flock fails otherwise) is written to unlocked, as before.
    while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
    }
    json all = read_all(path_);
    change(all);
    auto written = write_all(all.dump(2) + "\n");
    ::close(lock);  // releases the lock
    return written;
}

Expected<void, std::string> TokenStore::save(const std::string& server, const std::string& game,
                                             const StoredSeat& seat) const {
    return update([&](json& all) {
        if (!all[server].is_object()) {
            all[server] = json::object();
        }
        json& entry = all[server][game];
        if (!entry.is_object() || entry.contains("token")) {
            // Nothing stored, or one seat in the form of before seats were keyed: the seat of
            // that form is kept under its name.
            json seats = json::object();
            if (entry.is_object() && entry["token"].is_string() && entry["seat"].is_string()) {
                seats[entry["seat"].get<std::string>()] = {{"token", entry["token"]}};
            }
            entry = std::move(seats);
        }
        entry[seat.seat] = {{"token", seat.token}};
    });
}

Expected<void, std::string> TokenStore::save_session(const std::string& server,
                                                     const StoredSession& session) const {
    return update([&](json& all) {
        if (!all[server].is_object()) {
            all[server] = json::object();
        }
        // Game ids are letters and digits: "@session" is never one.
        all[server][kSessionKey] = {{"username", session.username}, {"token", session.token}};
    });
}

Expected<void, std::string> TokenStore::forget_session(const std::string& server) const {
    return update([&](json& all) {
        if (all.contains(server) && all[server].is_object()) {
            all[server].erase(kSessionKey);
        }
    });
}

std::optional<StoredSession> TokenStore::find_session(const std::string& server) const {
    const json all = read_all(path_);
    auto by_server = all.find(server);
    if (by_server == all.end() || !by_server->is_object()) {
        return std::nullopt;
    }
    auto entry = by_server->find(kSessionKey);
    if (entry == by_server->end() || !entry->is_object() || !entry->contains("token") ||
        !entry->at("token").is_string()) {
        return std::nullopt;
    }
    return StoredSession{entry->value("username", ""), entry->value("token", "")};
}

Expected<void, std::string> TokenStore::write_all(const std::string& text) const {
    const std::string temporary = path_ + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        return unexpected("cannot write " + temporary + ": " + std::strerror(errno));
    }
    ::fchmod(fd, 0600);  // the umask cannot widen it, but an old file of the same name might
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const bool closed = ::close(fd) == 0;
    if (!written || !closed || std::rename(temporary.c_str(), path_.c_str()) != 0) {
        ::unlink(temporary.c_str());
        return unexpected("cannot write " + path_ + ": " + std::strerror(errno));
    }
    return {};
}

std::vector<StoredSeat> TokenStore::seats(const std::string& server,
                                          const std::string& game) const {
    std::vector<StoredSeat> found;
    const json all = read_all(path_);
    auto by_server = all.find(server);
    if (by_server == all.end() || !by_server->is_object()) {
        return found;
    }
    auto entry = by_server->find(game);
    if (entry == by_server->end() || !entry->is_object()) {
        return found;
    }
    if (entry->contains("token")) {  // one seat, stored before seats were keyed
        if (entry->at("token").is_string()) {
            found.push_back(StoredSeat{entry->at("token").get<std::string>(),
                                       entry->value("seat", std::string())});
        }
        return found;
    }
    for (const auto& [seat, stored] : entry->items()) {
        if (stored.is_object() && stored.contains("token") && stored.at("token").is_string()) {
            found.push_back(StoredSeat{stored.at("token").get<std::string>(), seat});
        }
    }
    return found;
}

Expected<StoredSeat, std::string> choose_seat(const std::vector<StoredSeat>& stored,
                                              const std::string& wanted, const std::string& game) {
    if (!wanted.empty()) {
        for (const StoredSeat& seat : stored) {
            if (seat.seat == wanted) {
                return seat;
            }
        }
        return unexpected("no token for the " + wanted + " seat of game " + game +
                          ": pass --token");
    }
    if (stored.size() == 1) {
        return stored.front();
    }
    if (stored.empty()) {
        return unexpected("no token for game " + game + ": pass --token");
    }
    std::string names;
    for (const StoredSeat& seat : stored) {
        names += (names.empty() ? "" : " or ") + seat.seat;
    }
    return unexpected("you hold both seats of game " + game + ": say which with --seat " + names);
}

}  // namespace arbiter::client
