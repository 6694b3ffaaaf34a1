// Players: the creator (player 0) sends `create`, the joiner (player 1) `join`; whoever the
// server names in `turn` picks a move from the `legal` list it was just sent, so the next move
// leaves as soon as the previous `moved` arrived. When a game ends the creator opens the next one
// in the same slot and the slot's spectators follow it.
#include "bench/load/driver.hpp"

#include <algorithm>
#include <array>
#include <variant>

#include "common/core/overloaded.hpp"
#include "common/protocol/codec.hpp"

namespace arbiter::bench::load {

struct Driver::Slot {
    std::shared_ptr<Link> players[2];
    bool open[2] = {false, false};
    std::string game;
    rules::Variant variant = rules::Variant::chess;  // the game's, from its `created`
    std::optional<rules::Side> seats[2];
    std::string tokens[2];
    bool join_sent = false;
    Clock::time_point sent[4];  // by ply % 4: at most two moves are unacknowledged at once
    Clock::time_point next_allowed;
    std::vector<Spectator*> spectators;
    std::uint64_t echo_ply = 0;
    std::uint64_t pair = 0;  // relay: the number both players name to the relay server
    std::string node[2];     // --by-node: the server name each player's `welcome` gave
};

struct Driver::Spectator {
    std::shared_ptr<Link> link;
    std::vector<Slot*> slots;  // the slots whose games it watches
    bool stalled = false;
    bool open = false;
    std::string node;  // --by-node: the server name its `welcome` gave
};

struct Driver::Reader {
    std::shared_ptr<Link> link;
    bool open = false;
    bool watch_next = false;  // replay and watch by turns
};

namespace {

// A request as the protocol's codec writes it.
std::string encoded(protocol::ClientBody body, std::optional<std::string> id = std::nullopt) {
    return protocol::encode(protocol::ClientMessage{std::move(id), std::move(body)});
}

// At most this many handshakes in flight per loop: a burst of 10,000 SYNs would overflow the
// server's accept backlog and turn into retransmit delays of a second or more.
constexpr int kMaxConnecting = 64;

// A bare server's frame: the size and shape of a real `move` request, told apart by its id.
std::string bare_frame(char id) {
    return encoded(protocol::MoveRequest{"Xq7Rk2LmP9aB", "e2e4", 12}, std::string(1, id));
}

const std::string kEchoFrame = bare_frame('m');

// The relay mode's frames, one per player: a player tells its own frame, relayed back to it,
// from its partner's, which means its turn.
const std::string kRelayFrames[2] = {bare_frame('0'), bare_frame('1')};

std::int64_t micros_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

}  // namespace

Driver::Driver(EventLoop& loop, const RunSettings& settings, unsigned games, unsigned spectators,
               unsigned stalled, unsigned readers, unsigned first_connection, unsigned seed)
    : loop_(loop), settings_(settings), next_connection_(first_connection), random_(seed) {
    if (settings.moves_per_second > 0) {
        move_interval_ = std::chrono::microseconds(
            static_cast<std::int64_t>(1e6 * settings.total_games / settings.moves_per_second));
    }
    for (unsigned i = 0; i < games; ++i) {
        slots_.push_back(std::make_unique<Slot>());
        // Unique over the run: each driver's connections are numbered from first_connection.
        slots_.back()->pair = first_connection + i;
    }
    for (unsigned i = 0; i < spectators + stalled; ++i) {
        auto spectator = std::make_unique<Spectator>();
        spectator->stalled = i >= spectators;
        for (unsigned k = 0; k < std::min<std::size_t>(settings.watch_games, slots_.size()); ++k) {
            Slot* slot = slots_[(i + k) % slots_.size()].get();
            spectator->slots.push_back(slot);
            slot->spectators.push_back(spectator.get());
        }
        spectators_.push_back(std::move(spectator));
    }
    for (auto& slot : slots_) {
        to_open_.push_back([this, s = slot.get()] { open_player(*s, 0); });
        to_open_.push_back([this, s = slot.get()] { open_player(*s, 1); });
    }
    if (!settings.bare) {
        for (auto& spectator : spectators_) {
            to_open_.push_back([this, s = spectator.get()] { open_spectator(*s); });
        }
        for (unsigned i = 0; i < readers; ++i) {
            readers_.push_back(std::make_unique<Reader>());
            to_open_.push_back([this, r = readers_.back().get()] { open_reader(*r); });
        }
    }
    wanted_ = static_cast<unsigned>(to_open_.size());
}

Driver::~Driver() = default;

void Driver::start() {
    for (int i = 0; i < kMaxConnecting; ++i) {
        open_next();
    }
}

void Driver::open_next() {
    if (next_to_open_ < to_open_.size()) {
        ++connecting_;
        to_open_[next_to_open_++]();
    }
}

LinkOptions Driver::link_options(bool stalled) {
    LinkOptions options;
    if (settings_.per_address > 0) {
        const unsigned host = 1 + next_connection_ / settings_.per_address;
        options.source_address = "127.0.0." + std::to_string(host);
    }
    ++next_connection_;
    if (stalled) {
        options.receive_buffer = settings_.stalled_receive_buffer;
    }
    return options;
}

void Driver::open_player(Slot& slot, int player) {
    LinkHandler handler;
    handler.on_open = [this, &slot, player] {
        slot.open[player] = true;
        connection_opened();
        if (settings_.bare == BareMode::relay) {
            slot.players[player]->send(R"({"pair":)" + std::to_string(slot.pair) + "}");
        } else if (settings_.bare) {
            if (slot.open[0] && slot.open[1]) {
                send_echo(slot, 0);
            }
        } else if (player == 0) {
            if (settings_.by_node) {
                slot.players[0]->send(encoded(protocol::Hello{"load", std::nullopt}, "h"));
            }
            create_game(slot);
        } else {
            if (settings_.by_node) {
                slot.players[1]->send(encoded(protocol::Hello{"load", std::nullopt}, "h"));
            }
            if (!slot.game.empty() && !slot.join_sent) {
                slot.join_sent = true;
                slot.players[1]->send(encoded(protocol::Join{slot.game}));
            }
        }
    };
    handler.on_message = [this, &slot, player](std::string_view text) {
        if (settings_.bare == BareMode::relay) {
            on_relay(slot, player, text);
        } else if (settings_.bare) {
            on_echo(slot, player);
        } else {
            on_player_message(slot, player, text);
        }
    };
    handler.on_close = [this, &slot, player](int code, const std::string& what) {
        connection_closed(slot.open[player]);
        slot.open[player] = false;
        on_closed(code, what);
    };
    slot.players[player] =
        loop_.connect(settings_.endpoint, link_options(false), std::move(handler));
}

void Driver::open_spectator(Spectator& spectator) {
    LinkHandler handler;
    handler.on_open = [this, &spectator] {
        spectator.open = true;
        connection_opened();
        if (spectator.stalled) {
            ++stalled_open_;
            spectator.link->pause_reading();
        } else if (settings_.by_node) {
            spectator.link->send(encoded(protocol::Hello{"load", std::nullopt}, "h"));
        }
        for (const Slot* slot : spectator.slots) {
            if (!slot->game.empty()) {
                spectator.link->send(encoded(protocol::Watch{slot->game, std::nullopt}));
            }
        }
    };
    handler.on_message = [this, &spectator](std::string_view text) {
        on_spectator_message(spectator, text);
    };
    handler.on_close = [this, &spectator](int code, const std::string& what) {
        connection_closed(spectator.open);
        if (spectator.open && spectator.stalled) {
            --stalled_open_;
        }
        spectator.open = false;
        on_closed(code, (spectator.stalled ? "stalled spectator " : "spectator ") + what);
    };
    spectator.link =
        loop_.connect(settings_.endpoint, link_options(spectator.stalled), std::move(handler));
}

void Driver::on_spectator_message(Spectator& spectator, std::string_view text) {
    // Only a `moved` (and with --by-node the `welcome`) is read: the rest costs no parse.
    const bool moved = text.find(R"("type":"moved")") != std::string_view::npos;
    const bool welcome = settings_.by_node && spectator.node.empty() &&
                         text.find(R"("type":"welcome")") != std::string_view::npos;
    if (!moved && !welcome) {
        return;
    }
    Slot* watched = nullptr;
    const auto message =
        protocol::decode_server(text, [&spectator, &watched](std::string_view game) {
            for (Slot* slot : spectator.slots) {
                if (slot->game == game) {
                    watched = slot;
                    return std::optional(slot->variant);
                }
            }
            return std::optional<rules::Variant>();
        });
    if (!message) {
        return;  // an event of a game its slot has moved on from
    }
    if (const auto* hello = std::get_if<protocol::Welcome>(&message->body)) {
        spectator.node = hello->server;
        return;
    }
    const auto* event = std::get_if<protocol::Moved>(&message->body);
    if (event == nullptr || watched == nullptr || event->ply == 0 ||
        !settings_.measuring->load(std::memory_order_relaxed)) {
        return;
    }
    const auto latency = micros_since(watched->sent[(event->ply - 1) % 4]);
    if (settings_.by_node && spectator.node != watched->node[0]) {
        stats_.to_spectator_other_node.add(latency);
    } else {
        stats_.to_spectator.add(latency);
    }
}

void Driver::open_reader(Reader& reader) {
    LinkHandler handler;
    handler.on_open = [this, &reader] {
        reader.open = true;
        connection_opened();
        // Each reader at its own phase, so that the reads arrive spread over each interval.
        const auto interval = static_cast<std::uint64_t>(1e6 / settings_.reads_per_second);
        read_after(reader,
                   std::chrono::microseconds(random_() % std::max<std::uint64_t>(interval, 1)));
    };
    handler.on_message = [this](std::string_view text) { on_reader_message(text); };
    handler.on_close = [this, &reader](int code, const std::string& what) {
        connection_closed(reader.open);
        reader.open = false;
        on_closed(code, "reader " + what);
    };
    reader.link = loop_.connect(settings_.endpoint, link_options(false), std::move(handler));
}

void Driver::read_after(Reader& reader, std::chrono::microseconds delay) {
    loop_.after(delay, [this, &reader] {
        if (!reader.open || shutting_down_) {
            return;
        }
        const std::string game = settings_.ended_games != nullptr
                                     ? settings_.ended_games->pick(random_())
                                     : std::string();
        if (!game.empty()) {
            reader.link->send(reader.watch_next ? encoded(protocol::Watch{game, std::nullopt}, "r")
                                                : encoded(protocol::ReplayRequest{game}, "r"));
            reader.watch_next = !reader.watch_next;
            if (settings_.measuring->load(std::memory_order_relaxed)) {
                ++stats_.reads_sent;
            }
        }
        read_after(reader, std::chrono::microseconds(
                               static_cast<std::int64_t>(1e6 / settings_.reads_per_second)));
    });
}

void Driver::on_reader_message(std::string_view text) {
    if (!settings_.measuring->load(std::memory_order_relaxed)) {
        return;  // answers outside the measured seconds
    }
    // A reader follows no game of its own: the answers it counts (record, state, error) name
    // their variant or no seat.
    const auto message = protocol::decode_server(
        text, [](std::string_view) { return std::optional<rules::Variant>(); });
    if (!message) {
        if (message.error().id == "r") {
            ++stats_.read_errors["unreadable answer"];
        }
        return;
    }
    if (message->id != "r") {
        return;  // events of the games it watches
    }
    if (const auto* error = std::get_if<protocol::ErrorMessage>(&message->body)) {
        ++stats_.read_errors[std::string(protocol::to_string(error->code))];
    } else {
        ++stats_.reads_answered;
    }
}

void Driver::connection_opened() {
    ++open_;
    ++settled_;
    --connecting_;
    open_next();
}

void Driver::connection_closed(bool was_open) {
    if (was_open) {
        --open_;
        return;
    }
    ++settled_;  // the handshake failed: the next connection may start
    --connecting_;
    open_next();
}

void Driver::on_closed(int close_code, const std::string& what) {
    if (shutting_down_) {
        return;  // our own closes at the end of the run
    }
    std::string key = close_code != 0 ? "close " + std::to_string(close_code) : what;
    // Keep the report short: "read: Connection reset by peer" and friends by their first words.
    if (key.size() > 60) {
        key.resize(60);
    }
    ++stats_.closes[key];
}

void Driver::create_game(Slot& slot) {
    const std::string variant =
        settings_.variant == "mixed"
            ? std::string(std::array{"chess", "xiangqi", "draughts"}[random_() % 3])
            : settings_.variant;
    protocol::Create create;
    create.variant = rules::parse_variant(variant).value_or(rules::Variant::chess);
    create.side = protocol::SidePreference::first;
    slot.players[0]->send(encoded(std::move(create), "c"));
}

void Driver::on_player_message(Slot& slot, int player, std::string_view text) {
    // The seats a player needs named are those of its slot's game. An event of the slot's
    // previous game (late, perhaps of another variant) is refused as unknown_game and let go.
    const auto message = protocol::decode_server(text, [&slot](std::string_view game) {
        return game == slot.game ? std::optional(slot.variant) : std::nullopt;
    });
    if (!message) {
        if (message.error().code != protocol::ErrorCode::unknown_game) {
            ++stats_.errors["unparsable server message"];
        }
        return;
    }
    std::visit(
        Overloaded{
            [&](const protocol::ErrorMessage& error) { on_refused(slot, player, *message, error); },
            [&](const protocol::SeatGranted& seat) { on_seat(slot, seat); },
            [&](const protocol::State& state) {
                if (state.game == slot.game && state.status == protocol::GameStatus::playing &&
                    state.turn == slot.seats[player] && !settings_.idle) {
                    choose_move(slot, player, state.legal, state.ply);
                }
            },
            [&](const protocol::Moved& moved) {
                if (moved.game == slot.game) {
                    on_moved(slot, player, moved, message->id.has_value());
                }
            },
            [&](const protocol::Ended& ended) {
                if (ended.game == slot.game && player == 0) {
                    ++stats_.games_ended;
                    if (settings_.ended_games != nullptr) {
                        settings_.ended_games->add(slot.game);
                    }
                    create_game(slot);
                }
            },
            [&](const protocol::Welcome& welcome) { slot.node[player] = welcome.server; },
            // Players neither offer, take back, claim, follow the lobby nor replay (an analysis'
            // progress goes to those who replayed the game).
            [](const OneOf<protocol::OfferEvent, protocol::TakenBack, protocol::Presence,
                           protocol::RematchEvent, protocol::SpectatorCount, protocol::SeatLost,
                           protocol::LobbyList, protocol::GamesList, protocol::Record,
                           protocol::Pong, protocol::ChatEvent, protocol::ChatMuted,
                           protocol::AnalysisProgress> auto&) {},
        },
        message->body);
}

void Driver::on_refused(Slot& slot, int player, const protocol::ServerMessage& message,
                        const protocol::ErrorMessage& error) {
    ++stats_.errors[std::string(protocol::to_string(error.code))];
    // A refused move leaves the game waiting for it: take the seat's state afresh.
    if (message.id == "m" && !slot.game.empty()) {
        slot.players[player]->send(
            encoded(protocol::Resume{slot.game, slot.tokens[player], std::nullopt}));
    }
}

void Driver::on_seat(Slot& slot, const protocol::SeatGranted& seat) {
    if (seat.created) {
        const std::string previous = slot.game;
        slot.game = seat.game;
        slot.variant = seat.variant;
        slot.seats[0] = seat.seat;
        slot.tokens[0] = seat.token;
        slot.join_sent = false;
        ++stats_.games_started;
        if (slot.open[1]) {
            slot.join_sent = true;
            slot.players[1]->send(encoded(protocol::Join{slot.game}));
        }
        follow(slot, previous);
    } else if (seat.game == slot.game) {
        slot.seats[1] = seat.seat;
        slot.tokens[1] = seat.token;
    }
}

// The mover's copy carries its request's id: a round trip. The other's is the opponent's move.
void Driver::on_moved(Slot& slot, int player, const protocol::Moved& moved, bool answers_request) {
    const auto ply = moved.ply;
    const auto latency = micros_since(slot.sent[(ply - 1) % 4]);
    const bool measuring = settings_.measuring->load(std::memory_order_relaxed);
    if (answers_request) {
        if (measuring) {
            add_round_trip(latency);
        }
        if (settings_.record != nullptr) {
            const std::string line =
                slot.game + " " + std::to_string(ply) + " " + moved.move + "\n";
            const std::lock_guard lock(*settings_.record_mutex);
            std::fputs(line.c_str(), settings_.record);
            std::fflush(settings_.record);
        }
    } else {
        if (measuring) {
            stats_.to_opponent.add(latency);
        }
        if (moved.turn == slot.seats[player]) {
            choose_move(slot, player, moved.legal, ply);
        }
    }
}

void Driver::choose_move(Slot& slot, int player, std::span<const std::string> legal,
                         std::uint64_t ply) {
    if (legal.empty()) {
        return;
    }
    if (settings_.resign_at != 0 && ply >= settings_.resign_at) {
        slot.players[player]->send(encoded(protocol::Resign{slot.game}));
        return;
    }
    const std::string& move = legal[random_() % legal.size()];
    if (move_interval_.count() == 0) {
        send_move(slot, player, move, ply);
        return;
    }
    loop_.after(pacing_delay(slot), [this, &slot, player, move, ply, game = slot.game] {
        if (slot.game == game && slot.open[player]) {
            send_move(slot, player, move, ply);
        }
    });
}

void Driver::send_move(Slot& slot, int player, const std::string& move, std::uint64_t ply) {
    slot.sent[ply % 4] = Clock::now();
    slot.players[player]->send(
        encoded(protocol::MoveRequest{slot.game, move, static_cast<std::uint32_t>(ply)}, "m"));
}

void Driver::send_echo(Slot& slot, int player) {
    slot.sent[slot.echo_ply % 4] = Clock::now();
    slot.players[player]->send(kEchoFrame);
}

void Driver::on_echo(Slot& slot, int player) {
    if (settings_.measuring->load(std::memory_order_relaxed)) {
        add_round_trip(micros_since(slot.sent[slot.echo_ply % 4]));
    }
    ++slot.echo_ply;
    send_paced(slot, 1 - player, &Driver::send_echo);
}

void Driver::send_relay(Slot& slot, int player) {
    slot.sent[player] = Clock::now();
    slot.players[player]->send(kRelayFrames[player]);
}

// Each connection gets its own frame back before its partner's next one: the partner sends only
// once its copy arrived, and the relay queued the sender's copy first. So slot.sent[player] is
// still the time of the frame coming back.
void Driver::on_relay(Slot& slot, int player, std::string_view text) {
    const bool measuring = settings_.measuring->load(std::memory_order_relaxed);
    if (text == kRelayFrames[player]) {
        if (measuring) {
            add_round_trip(micros_since(slot.sent[player]));
        }
    } else if (text == kRelayFrames[1 - player]) {
        if (measuring) {
            stats_.to_opponent.add(micros_since(slot.sent[1 - player]));
        }
        send_paced(slot, player, &Driver::send_relay);
    } else if (text.starts_with(R"({"paired":)")) {
        if (player == 0) {
            send_relay(slot, 0);
        }
    } else {
        ++stats_.errors["unexpected relay frame"];
    }
}

void Driver::send_paced(Slot& slot, int player, void (Driver::*send)(Slot&, int)) {
    if (!slot.open[player]) {
        return;
    }
    if (move_interval_.count() == 0) {
        (this->*send)(slot, player);
        return;
    }
    loop_.after(pacing_delay(slot), [this, &slot, player, send] {
        if (slot.open[player]) {
            (this->*send)(slot, player);
        }
    });
}

void Driver::add_round_trip(std::int64_t micros) {
    ++stats_.round_trips;
    stats_.to_mover.add(micros);
    if (!settings_.timeline) {
        return;
    }
    const auto now = Clock::now();
    if (measured_from_ == Clock::time_point()) {
        measured_from_ = now;
    }
    const auto second = static_cast<std::size_t>(
        std::chrono::duration_cast<std::chrono::seconds>(now - measured_from_).count());
    if (stats_.to_mover_by_second.size() <= second) {
        stats_.to_mover_by_second.resize(second + 1);
    }
    stats_.to_mover_by_second[second].add(micros);
}

std::chrono::microseconds Driver::pacing_delay(Slot& slot) {
    // The cap is spread evenly over the games: each moves at most once per interval, and each
    // slot's intervals start at its own random phase. Without the phase every slot's first move
    // went at once and the games kept that alignment: the "steady" rate arrived as one burst of
    // G moves per interval, and the latency measured was the burst's.
    const auto now = Clock::now();
    if (slot.next_allowed == Clock::time_point()) {
        slot.next_allowed =
            now + std::chrono::microseconds(static_cast<std::int64_t>(
                      random_() % static_cast<std::uint64_t>(move_interval_.count())));
    }
    const Pace paced = pace(now, slot.next_allowed, move_interval_, settings_.pacing);
    slot.next_allowed = paced.next;
    return std::chrono::duration_cast<std::chrono::microseconds>(paced.leaves - now);
}

void Driver::follow(Slot& slot, const std::string& previous_game) {
    for (Spectator* spectator : slot.spectators) {
        if (!spectator->open) {
            continue;
        }
        if (!previous_game.empty()) {
            spectator->link->send(encoded(protocol::Unwatch{previous_game}));
        }
        spectator->link->send(encoded(protocol::Watch{slot.game, std::nullopt}));
    }
}

void Driver::drain_stalled() {
    for (auto& spectator : spectators_) {
        if (spectator->stalled && spectator->open) {
            spectator->link->resume_reading();
        }
    }
}

void Driver::shutdown() {
    shutting_down_ = true;
    for (auto& slot : slots_) {
        for (auto& link : slot->players) {
            if (link) {
                link->close();
            }
        }
    }
    for (auto& spectator : spectators_) {
        if (spectator->link) {
            spectator->link->close();
        }
    }
    for (auto& reader : readers_) {
        if (reader->link) {
            reader->link->close();
        }
    }
}

}  // namespace arbiter::bench::load
