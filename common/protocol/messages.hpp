#pragma once
/// \file
/// The wire protocol as C++ values: a closed set of client messages and of server messages, which
/// the codec (codec.hpp) reads and writes in both directions. The prose contract is
/// schema/protocol.md; the JSON Schemas are schema/messages/*.schema.json. No JSON types leak
/// out of this module: the server and the clients build and read these plain structs, and
/// compare them whole (operator==).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/core/overloaded.hpp"
#include "common/rules/game.hpp"

namespace arbiter::protocol {

/// The protocol version that `welcome` announces.
inline constexpr int kProtocolVersion = 1;

/// Stable snake_case error codes carried by `error` messages (to_string() gives the wire name).
enum class ErrorCode : std::uint8_t {
    bad_json,       ///< the frame is not a JSON object
    bad_request,    ///< a field is missing, of the wrong type, out of range, or unknown
    unknown_type,   ///< "type" names no client message
    unknown_game,   ///< no such game
    forbidden,      ///< the connection may not act for that seat or game
    not_your_turn,  ///< a move by the side not to move
    illegal_move,   ///< the rules refuse the move (the message says why)
    stale_ply,      ///< `ply` is not the number of plies played
    game_over,      ///< the game has ended
    seat_taken,     ///< join: both seats are taken
    rate_limited,   ///< too many messages per second
    too_large,      ///< the frame is over the size limit
    no_offer,       ///< accept/decline with no pending offer from the opponent
    not_allowed,    ///< the action is not allowed now (abort after both moved, claim too early)
    not_ready,      ///< the game has not started (no opponent yet)
    unavailable,    ///< the server cannot take this now (storage failed, shutting down)
    engine_unavailable,  ///< create.opponent names no engine for that variant, or a bad level
    unauthorized,        ///< hello.token names no live session: sign in again
    name_taken,          ///< a guest's hello.name is a registered username (ignoring case)
    internal,            ///< a bug on the server; the request changed nothing
};
/// The wire name of an error code: "bad_json", "not_your_turn", ...
std::string_view to_string(ErrorCode code) noexcept;

/// A game clock: Fischer increment.
struct ClockSpec {
    std::int64_t initial_ms = 0;
    std::int64_t increment_ms = 0;
    friend bool operator==(const ClockSpec&, const ClockSpec&) = default;
};

/// create.side
enum class SidePreference : std::uint8_t { first, second, random };

/// draw / takeback / rematch .action
enum class OfferAction : std::uint8_t { offer, accept, decline };
/// The three things a player can offer; also the client message type names.
enum class OfferKind : std::uint8_t { draw, takeback, rematch };
/// "draw", "takeback", "rematch".
std::string_view to_string(OfferKind kind) noexcept;
/// "offer", "accept", "decline".
std::string_view to_string(OfferAction action) noexcept;

/// Where a game is in its life. Inside the server this is the only form; the text ("waiting",
/// "playing", "ended", "aborted") exists in the codec and in the SQL rows.
enum class GameStatus : std::uint8_t { waiting, playing, ended, aborted };
/// "waiting", "playing", "ended", "aborted".
std::string_view to_string(GameStatus status) noexcept;
/// Inverse of to_string; nullopt for anything else.
std::optional<GameStatus> parse_game_status(std::string_view text) noexcept;
/// Ended or aborted: the game is over and takes no more moves.
constexpr bool is_finished(GameStatus status) noexcept {
    return status == GameStatus::ended || status == GameStatus::aborted;
}

/// Why a game ended: a rule of the game (the first ten, as rules::Reason names them), or
/// something a player or the server did. `none` while the game is not over. The wire names are
/// the enumerator names ("checkmate", "resign", "engine_failure"), `none` being "" (null).
enum class EndReason : std::uint8_t {
    none,
    checkmate,
    stalemate,
    no_moves,
    repetition,
    fifty_moves,
    insufficient_material,
    perpetual_check,
    perpetual_chase,
    move_limit,
    resign,          ///< a player resigned
    timeout,         ///< a clock ran out (a draw when the other side cannot win, FIDE 6.9)
    agreement,       ///< a draw offer was accepted
    abandoned,       ///< a claim after a disconnect, or a waiting game whose creator left
    aborted,         ///< aborted by a player before both sides moved
    engine_failure,  ///< the engine seat failed twice on one move
};
/// "checkmate", "resign", ...; "" for EndReason::none.
std::string_view to_string(EndReason reason) noexcept;
/// Inverse of to_string ("" gives none); nullopt for anything else.
std::optional<EndReason> parse_end_reason(std::string_view text) noexcept;
/// The end reason of a rule of the game.
EndReason end_reason_of(rules::Reason reason) noexcept;

/// The result text of an outcome: "1-0", "0-1", "1/2-1/2", and "" while ongoing (or aborted).
std::string_view result_text(rules::Outcome outcome) noexcept;
/// Inverse of result_text ("" gives ongoing); nullopt for anything else.
std::optional<rules::Outcome> parse_result(std::string_view text) noexcept;

/// claim.kind
enum class ClaimKind : std::uint8_t { win, draw };

/// The two chat rooms of a game (protocol.md, Chat): the seats' own, and the watchers'.
enum class ChatRoom : std::uint8_t { players, spectators };
/// "players", "spectators".
std::string_view to_string(ChatRoom room) noexcept;
/// The most code points of a chat message, after trimming (protocol.md, Chat).
inline constexpr std::size_t kMaxChatLength = 140;

// ---- client -> server ---------------------------------------------------------------------

struct Hello {
    std::string name;  ///< 1..32 printable characters
    /// A session token (POST /api/session) that signs the connection in; nullopt: none sent.
    std::optional<std::string> token;
    friend bool operator==(const Hello&, const Hello&) = default;
};
/// The levels an engine opponent accepts: 1 (weakest) .. 8 (strongest).
inline constexpr int kMinEngineLevel = 1;
inline constexpr int kMaxEngineLevel = 8;

/// create.opponent: play the computer instead of waiting for a person.
struct EngineOpponent {
    std::string engine;  ///< a name from welcome.engines ("builtin", "stockfish", ...)
    int level = kMinEngineLevel;
    friend bool operator==(const EngineOpponent&, const EngineOpponent&) = default;
};
/// A seek's rating range (create.rating_range): only players whose rating in the game's pool lies
/// within it may join. Either bound may be absent (no bound on that side).
struct RatingRange {
    std::optional<int> min;
    std::optional<int> max;
    friend bool operator==(const RatingRange&, const RatingRange&) = default;
};
struct Create {
    rules::Variant variant = rules::Variant::chess;
    SidePreference side = SidePreference::random;
    std::optional<ClockSpec> clock;
    bool is_private = false;                 ///< wire: "private"
    std::string position;                    ///< FEN of the start position; empty = standard start
    std::optional<EngineOpponent> opponent;  ///< nullopt: wait for a person to join
    bool rated = false;                      ///< the game moves both players' ratings
    std::optional<RatingRange> rating_range = std::nullopt;  ///< only with rated
    friend bool operator==(const Create&, const Create&) = default;
};
struct Join {
    std::string game;
    friend bool operator==(const Join&, const Join&) = default;
};
struct Resume {
    std::string game;
    /// The seat's token; "" (absent on the wire) when the connection is signed in as the account
    /// bound to a seat of the game.
    std::string token;
    std::optional<std::uint64_t> since;
    friend bool operator==(const Resume&, const Resume&) = default;
};
struct Watch {
    std::string game;
    std::optional<std::uint64_t> since;
    friend bool operator==(const Watch&, const Watch&) = default;
};
struct Unwatch {
    std::string game;
    friend bool operator==(const Unwatch&, const Unwatch&) = default;
};
struct MoveRequest {  ///< wire type "move"
    std::string game;
    std::string move;
    std::uint32_t ply = 0;
    /// The think time the client measured itself, from receiving the turn to sending the move
    /// (protocol.md, Lag compensation); nullopt when it reports none.
    std::optional<std::int64_t> think_ms = std::nullopt;
    friend bool operator==(const MoveRequest&, const MoveRequest&) = default;
};
struct Resign {
    std::string game;
    friend bool operator==(const Resign&, const Resign&) = default;
};
struct OfferRequest {  ///< wire types "draw", "takeback", "rematch"
    std::string game;
    OfferKind kind = OfferKind::draw;
    OfferAction action = OfferAction::offer;
    friend bool operator==(const OfferRequest&, const OfferRequest&) = default;
};
struct Abort {
    std::string game;
    friend bool operator==(const Abort&, const Abort&) = default;
};
struct Claim {
    std::string game;
    ClaimKind kind = ClaimKind::win;
    friend bool operator==(const Claim&, const Claim&) = default;
};
/// Wire type "lobby". Without `limit` or `after`: follow the open games (the first page, then
/// again after each change). With either: one page of them, answered once.
struct LobbySubscribe {
    std::optional<int> limit;          ///< 1..200: games in the page
    std::optional<std::string> after;  ///< a listed game id: the page after it
    /// Whether this asks for one page rather than following the lobby.
    bool paged() const noexcept { return limit.has_value() || after.has_value(); }
    friend bool operator==(const LobbySubscribe&, const LobbySubscribe&) = default;
};
struct GamesQuery {  ///< wire type "games"
    std::optional<GameStatus> status;
    std::optional<rules::Variant> variant;
    int limit = 50;                     ///< 1..200
    std::optional<std::string> before;  ///< a game id: page to games created before it
    friend bool operator==(const GamesQuery&, const GamesQuery&) = default;
};
struct ReplayRequest {  ///< wire type "replay"
    std::string game;
    friend bool operator==(const ReplayRequest&, const ReplayRequest&) = default;
};
struct Ping {
    friend bool operator==(const Ping&, const Ping&) = default;
};
/// Wire type "chat": a message to one of the game's rooms. `text` is trimmed, 1..140 code
/// points without control characters (the decoder refuses anything else).
struct ChatRequest {
    std::string game;
    ChatRoom room = ChatRoom::players;
    std::string text;
    friend bool operator==(const ChatRequest&, const ChatRequest&) = default;
};
/// Wire type "chat_mute": a seat holder mutes (or unmutes) the opponent's players'-room messages.
struct ChatMute {
    std::string game;
    bool mute = true;
    friend bool operator==(const ChatMute&, const ChatMute&) = default;
};

using ClientBody = std::variant<Hello, Create, Join, Resume, Watch, Unwatch, MoveRequest, Resign,
                                OfferRequest, Abort, Claim, LobbySubscribe, GamesQuery,
                                ReplayRequest, Ping, ChatRequest, ChatMute>;

/// One decoded client message: the optional request id (≤ 64 chars) and the body.
struct ClientMessage {
    std::optional<std::string> id;
    ClientBody body;
    friend bool operator==(const ClientMessage&, const ClientMessage&) = default;
};

/// Why a frame was refused by decode(): the code, a message for a person, and the request id
/// when it could be read.
struct ProtocolError {
    ErrorCode code = ErrorCode::bad_request;
    std::string message;
    std::optional<std::string> id;
    friend bool operator==(const ProtocolError&, const ProtocolError&) = default;
};

// ---- server -> client ---------------------------------------------------------------------

/// A player's rating as shown beside the name: rounded, and whether it is still provisional.
struct PlayerRating {
    int rating = 1500;
    bool provisional = true;
    friend bool operator==(const PlayerRating&, const PlayerRating&) = default;
};

/// One seat as others see it.
struct PlayerInfo {
    std::string name;
    bool connected = false;
    bool engine = false;  ///< the seat is played by an engine (wire: `engine: true`, else absent)
    /// In a state of a game in play, for a player who is away: ms until the opponent may claim
    /// (0: already). Absent otherwise.
    std::optional<std::int64_t> claim_after_ms = std::nullopt;
    /// A person not signed in (false for accounts and engines).
    bool guest = false;
    /// The account's rating in the game's pool when it sat down; nullopt for guests, engines and
    /// untimed games.
    std::optional<PlayerRating> rating = std::nullopt;
    friend bool operator==(const PlayerInfo&, const PlayerInfo&) = default;
};

/// Clock readings: remaining ms per seat, and whether the side to move's clock is running.
struct ClockState {
    std::int64_t first_ms = 0;
    std::int64_t second_ms = 0;
    bool running = false;
    friend bool operator==(const ClockState&, const ClockState&) = default;
};

/// An open offer in `state.offers`.
struct OpenOffer {
    OfferKind kind = OfferKind::draw;
    rules::Side by = rules::Side::first;
    friend bool operator==(const OpenOffer&, const OpenOffer&) = default;
};

/// One engine this server offers as an opponent, and the variants it plays.
struct EngineInfo {
    std::string name;
    std::vector<rules::Variant> variants;
    friend bool operator==(const EngineInfo&, const EngineInfo&) = default;
};
/// welcome.user: the account a connection is signed in as.
struct SignedInUser {
    std::string username;
    friend bool operator==(const SignedInUser&, const SignedInUser&) = default;
};
struct Welcome {
    std::string server;  ///< "arbiter/<version>"
    int protocol = kProtocolVersion;
    std::vector<EngineInfo> engines;   ///< what create.opponent may name
    std::optional<SignedInUser> user;  ///< nullopt: a guest (null on the wire)
    friend bool operator==(const Welcome&, const Welcome&) = default;
};
/// `created` and `joined`: the seat and its secret token, sent only to that seat's connection.
struct SeatGranted {
    bool created = true;  ///< true: type "created"; false: type "joined"
    std::string game;
    rules::Variant variant = rules::Variant::chess;
    rules::Side seat = rules::Side::first;
    std::string token;
    friend bool operator==(const SeatGranted&, const SeatGranted&) = default;
};
/// One chat message as `state.chat` and `record.chat` list it (always with its text).
struct ChatLine {
    std::uint64_t seq = 0;
    ChatRoom room = ChatRoom::players;
    std::string from;  ///< the author's display name
    std::string text;
    std::int64_t at_ms = 0;  ///< Unix ms
    friend bool operator==(const ChatLine&, const ChatLine&) = default;
};

/// `state`: everything a client needs to draw a game from scratch.
struct State {
    std::string game;
    std::uint64_t seq = 0;
    rules::Variant variant = rules::Variant::chess;
    GameStatus status = GameStatus::waiting;
    std::optional<rules::Side> you;   ///< nullopt: "spectator"
    std::optional<PlayerInfo> first;  ///< nullopt: seat still open
    std::optional<PlayerInfo> second;
    std::string initial_position;
    std::string position;
    std::vector<std::string> moves;
    std::vector<std::string> notation;  ///< display notation of each move
    std::uint32_t ply = 0;
    rules::Side turn = rules::Side::first;
    std::vector<std::string> legal;
    /// Draughts: the route of each move of `legal`, in its order (on the wire only in draughts).
    std::vector<rules::MoveRoute> routes;
    bool check = false;
    std::optional<ClockState> clock;
    std::optional<ClockSpec> time_control;
    rules::Outcome result = rules::Outcome::ongoing;  ///< ongoing: not over (or aborted)
    EndReason reason = EndReason::none;
    std::vector<OpenOffer> offers;
    std::uint32_t spectators = 0;
    std::optional<std::string> rematch;  ///< the next game, once a rematch was agreed
    bool rated = false;
    std::optional<RatingRange> rating_range = std::nullopt;
    /// The last messages (at most kStateChatLines) this connection may read, oldest first.
    std::vector<ChatLine> chat = {};
    friend bool operator==(const State&, const State&) = default;
};
struct Moved {
    std::string game;
    std::uint64_t seq = 0;
    rules::Variant variant = rules::Variant::chess;  ///< not on the wire: names the seats
    std::uint32_t ply = 0;                           ///< plies played after this move
    std::string move;
    std::string notation;
    std::string position;
    rules::Side turn = rules::Side::first;
    std::vector<std::string> legal;
    bool check = false;
    std::optional<ClockState> clock;
    /// Draughts: the squares the move passed over and the pieces it took (on the wire only in
    /// draughts).
    rules::MoveRoute route = {};
    std::vector<rules::MoveRoute> routes = {};  ///< as State::routes
    friend bool operator==(const Moved&, const Moved&) = default;
};
/// One player's rating change at the end of a rated game (ratings rounded as shown).
struct RatingChange {
    int before = 1500;
    int after = 1500;
    int diff = 0;             ///< after - before
    bool provisional = true;  ///< of the new rating
    friend bool operator==(const RatingChange&, const RatingChange&) = default;
};
/// Both players' rating changes, by seat.
struct EndRatings {
    RatingChange first;
    RatingChange second;
    friend bool operator==(const EndRatings&, const EndRatings&) = default;
};
struct Ended {
    std::string game;
    std::uint64_t seq = 0;
    rules::Outcome result = rules::Outcome::ongoing;  ///< ongoing for an aborted game
    EndReason reason = EndReason::none;               ///< checkmate, resign, timeout, aborted ...
    GameStatus status = GameStatus::ended;            ///< ended | aborted
    /// The rating changes, when a rated game ended (not aborted).
    std::optional<EndRatings> ratings = std::nullopt;
    /// Not on the wire: names the seats of `ratings` (the decoder reads it from their names).
    rules::Variant variant = rules::Variant::chess;
    friend bool operator==(const Ended&, const Ended&) = default;
};
/// `offer`: an offer was made, accepted, declined or withdrawn.
struct OfferEvent {
    std::string game;
    std::uint64_t seq = 0;
    rules::Variant variant = rules::Variant::chess;  ///< not on the wire: names the seats
    OfferKind kind = OfferKind::draw;
    OfferAction action = OfferAction::offer;  ///< what happened
    rules::Side by = rules::Side::first;      ///< who did it
    friend bool operator==(const OfferEvent&, const OfferEvent&) = default;
};
/// `takeback`: the last plies were taken back on agreement; the position and clocks are restored.
struct TakenBack {
    std::string game;
    std::uint64_t seq = 0;
    rules::Variant variant = rules::Variant::chess;  ///< not on the wire: names the seats
    std::uint32_t ply = 0;                           ///< plies played after the takeback
    std::string position;
    rules::Side turn = rules::Side::first;
    std::vector<std::string> legal;
    bool check = false;
    std::optional<ClockState> clock;
    std::vector<rules::MoveRoute> routes = {};  ///< as State::routes
    friend bool operator==(const TakenBack&, const TakenBack&) = default;
};
struct Presence {
    std::string game;
    std::uint64_t seq = 0;
    rules::Variant variant = rules::Variant::chess;  ///< not on the wire: names the seats
    rules::Side seat = rules::Side::first;
    bool connected = false;
    std::optional<std::int64_t> claim_after_ms;  ///< set on a disconnect: when a claim opens
    friend bool operator==(const Presence&, const Presence&) = default;
};
/// `chat`: a message posted to one of the game's rooms (a game event). `text` is nullopt (null)
/// for a member who may not read that room, or who muted the author.
struct ChatEvent {
    std::string game;
    std::uint64_t seq = 0;
    ChatRoom room = ChatRoom::players;
    std::string from;
    std::optional<std::string> text;
    std::int64_t at_ms = 0;
    friend bool operator==(const ChatEvent&, const ChatEvent&) = default;
};
/// `chat_muted`: the answer to `chat_mute`, to that connection only (no seq).
struct ChatMuted {
    std::string game;
    bool mute = true;
    friend bool operator==(const ChatMuted&, const ChatMuted&) = default;
};
/// The most messages `state.chat` lists.
inline constexpr std::size_t kStateChatLines = 100;

/// `rematch`: both players agreed; `next` is the new game (spectators may watch it).
struct RematchEvent {
    std::string game;
    std::uint64_t seq = 0;
    std::string next;
    friend bool operator==(const RematchEvent&, const RematchEvent&) = default;
};
/// One watcher named in `spectators.watchers`.
struct Watcher {
    std::string name;    ///< the connection's display name when it began watching
    bool guest = false;  ///< not signed in
    friend bool operator==(const Watcher&, const Watcher&) = default;
};
/// The most watchers a `spectators` message names: a popular game's list stays one small frame.
inline constexpr std::size_t kMaxListedWatchers = 50;
/// `spectators`: the number of watchers changed (not a game event: no seq).
struct SpectatorCount {
    std::string game;
    std::uint32_t count = 0;
    /// Who watches, longest watching first, at most kMaxListedWatchers of them.
    std::vector<Watcher> watchers = {};
    friend bool operator==(const SpectatorCount&, const SpectatorCount&) = default;
};
/// Why a connection lost a seat (`seat_lost.reason`).
enum class SeatLossReason : std::uint8_t {
    resumed_elsewhere,  ///< a `resume` with the seat's token on another connection took it
};
/// "resumed_elsewhere".
std::string_view to_string(SeatLossReason reason) noexcept;

/// `seat_lost`: sent only to the connection that lost a seat (not a game event: no seq). Unless
/// it still holds the other seat or watches (`you`), it hears nothing more of the game; a `resume`
/// with the token takes the seat back.
struct SeatLost {
    std::string game;
    rules::Variant variant = rules::Variant::chess;  ///< not on the wire: names the seats
    rules::Side seat = rules::Side::first;           ///< the seat lost
    SeatLossReason reason = SeatLossReason::resumed_elsewhere;
    std::optional<rules::Side> still_seated;  ///< the other seat, when the connection holds it
    bool still_watching = false;              ///< the connection also watches the game
    friend bool operator==(const SeatLost&, const SeatLost&) = default;
};
/// One game in `lobby` and `games` lists.
struct GameSummary {
    std::string game;
    rules::Variant variant = rules::Variant::chess;
    GameStatus status = GameStatus::waiting;
    std::optional<PlayerInfo> first;
    std::optional<PlayerInfo> second;
    std::optional<ClockSpec> time_control;
    std::uint32_t ply = 0;
    rules::Outcome result = rules::Outcome::ongoing;
    EndReason reason = EndReason::none;
    std::int64_t created_ms = 0;  ///< Unix time in ms
    bool rated = false;
    std::optional<RatingRange> rating_range = std::nullopt;
    friend bool operator==(const GameSummary&, const GameSummary&) = default;
};
struct LobbyList {
    std::vector<GameSummary> games;
    /// More open games follow this page: pass it as the next request's `after`.
    std::optional<std::string> next = std::nullopt;  ///< an initializer: left out by most lists
    friend bool operator==(const LobbyList&, const LobbyList&) = default;
};
struct GamesList {
    std::vector<GameSummary> games;
    friend bool operator==(const GamesList&, const GamesList&) = default;
};
/// One move of a `record`.
struct RecordMove {
    std::uint32_t ply = 0;  ///< 1-based
    std::string move;
    std::string notation;
    std::string position;
    std::optional<std::int64_t> clock_ms;  ///< mover's remaining time after the move
    std::optional<std::int64_t> think_ms;
    bool check = false;  ///< the side to move after it is in check (chess, xiangqi)
    /// The lag credited to the mover's clock, included in clock_ms (protocol.md, Lag
    /// compensation); nullopt for untimed moves and moves stored before it was recorded.
    std::optional<std::int64_t> lag_ms = std::nullopt;
    friend bool operator==(const RecordMove&, const RecordMove&) = default;
};
struct Record {
    std::string game;
    rules::Variant variant = rules::Variant::chess;
    GameStatus status = GameStatus::waiting;
    std::optional<PlayerInfo> first;
    std::optional<PlayerInfo> second;
    std::optional<ClockSpec> time_control;
    std::string initial_position;
    std::vector<RecordMove> moves;
    rules::Outcome result = rules::Outcome::ongoing;
    EndReason reason = EndReason::none;
    std::int64_t created_ms = 0;
    bool initial_check = false;  ///< the side to move at the start is in check (a set-up position)
    bool rated = false;
    std::optional<RatingRange> rating_range = std::nullopt;
    std::optional<EndRatings> ratings = std::nullopt;  ///< a finished rated game's changes
    /// The spectators' room, and the players' room for an account that sat in the game.
    std::vector<ChatLine> chat = {};
    friend bool operator==(const Record&, const Record&) = default;
};
struct ErrorMessage {
    ErrorCode code = ErrorCode::internal;
    std::string message;
    friend bool operator==(const ErrorMessage&, const ErrorMessage&) = default;
};
struct Pong {
    friend bool operator==(const Pong&, const Pong&) = default;
};

/// Where an engine analysis of a finished game stands (protocol.md, "Analysis").
enum class AnalysisStatus : std::uint8_t { queued, running, done, failed };
/// "queued", "running", "done" or "failed".
std::string_view to_string(AnalysisStatus status) noexcept;
/// Inverse of to_string; nullopt for anything else.
std::optional<AnalysisStatus> parse_analysis_status(std::string_view name) noexcept;

/// `analysis`: how far the analysis of `game` is, sent to the connections that asked for that
/// game's `replay` (not a game event: no seq). The analysis itself is an HTTP body
/// (analysis_api.hpp).
struct AnalysisProgress {
    std::string game;
    AnalysisStatus status = AnalysisStatus::queued;
    std::int64_t done = 0;   ///< positions analysed so far, 0..total
    std::int64_t total = 1;  ///< positions in all: the moves plus one
    friend bool operator==(const AnalysisProgress&, const AnalysisProgress&) = default;
};

/// The game events (protocol.md, "Game events, seq and since"): each carries its `game` and `seq`,
/// and a client applies them in `seq` order. A visit may handle them together by this name.
template <typename T>
concept GameEvent =
    OneOf<T, Moved, Ended, OfferEvent, TakenBack, Presence, RematchEvent, ChatEvent>;

using ServerBody =
    std::variant<Welcome, SeatGranted, State, Moved, Ended, OfferEvent, TakenBack, Presence,
                 RematchEvent, SpectatorCount, SeatLost, LobbyList, GamesList, Record, ErrorMessage,
                 Pong, ChatEvent, ChatMuted, AnalysisProgress>;

/// One server message; `id` echoes the request it answers (direct replies and errors only).
struct ServerMessage {
    ServerBody body;
    std::optional<std::string> id;
    friend bool operator==(const ServerMessage&, const ServerMessage&) = default;
};

}  // namespace arbiter::protocol
