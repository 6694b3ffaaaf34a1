// Lag compensation as a value: the quota, the credit rule and the targets, with time as
// numbers (protocol.md, Lag compensation).
#include "server/app/lag_tracker.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace arbiter::server::app {
namespace {

using Ms = std::optional<std::int64_t>;

const protocol::ClockSpec kBullet{60'000, 0};      // 1+0
const protocol::ClockSpec kBlitz{180'000, 2'000};  // 3+2

// A whole game's timed moves by one seat, each elapsed `elapsed_ms` on the server's clock, at a
// measured round trip `round_trip`, the client reporting `reported` as its think time: what the
// seat was charged in all (elapsed less credit) and credited in all.
struct Totals {
    std::int64_t charged_ms = 0;
    std::int64_t credited_ms = 0;
};
Totals play(const protocol::ClockSpec& spec, int moves, std::int64_t elapsed_ms, Ms round_trip,
            Ms reported) {
    LagTracker tracker(LagQuota::for_clock(spec));
    Totals totals;
    for (int i = 0; i < moves; ++i) {
        const std::int64_t credit = tracker.credit_for({elapsed_ms, round_trip, reported});
        EXPECT_GE(credit, 0);
        EXPECT_LE(credit, elapsed_ms);
        totals.charged_ms += elapsed_ms - credit;
        totals.credited_ms += credit;
        tracker = tracker.after(credit, round_trip);
    }
    return totals;
}

TEST(LagQuota, FollowsTheTimeControlAsScalachessDoes) {
    // 1+0: 60 s / 250 + 150 = 390 ms a move; 3 to start with, 7 at most.
    EXPECT_EQ(LagQuota::for_clock(kBullet), (LagQuota{1'170, 390, 2'730}));
    // 3+2: (180 + 40 x 2) s / 250 + 150 = 1190, capped at 1 s.
    EXPECT_EQ(LagQuota::for_clock(kBlitz), (LagQuota{3'000, 1'000, 7'000}));
    // The shortest clock still refills 150 ms a move.
    EXPECT_EQ(LagQuota::for_clock({1, 0}).refill_ms, 150);
}

TEST(LagTracker, CreditsNothingWithoutAMeasuredRoundTrip) {
    const LagTracker tracker(LagQuota::for_clock(kBullet));
    EXPECT_EQ(tracker.credit_for({2'000, std::nullopt, std::nullopt}), 0);
    // A report alone explains nothing: only the server's own measurement does.
    EXPECT_EQ(tracker.credit_for({2'000, std::nullopt, 0}), 0);
}

TEST(LagTracker, WithoutAReportCreditsTheMeasuredRoundTrip) {
    const LagTracker tracker(LagQuota::for_clock(kBullet));
    EXPECT_EQ(tracker.credit_for({1'500, 200, std::nullopt}), 200);
    // Never more than the move took.
    EXPECT_EQ(tracker.credit_for({120, 200, std::nullopt}), 120);
}

TEST(LagTracker, AReportCreditsTheRestUpToWhatTheRoundTripExplains) {
    const LagTracker tracker(LagQuota::for_clock(kBullet));
    // 1 230 ms elapsed, 1 000 ms thought: 230 ms of lag, explained by 200 ms (+ 50 + 10).
    EXPECT_EQ(tracker.credit_for({1'230, 200, 1'000}), 230);
    EXPECT_EQ(LagTracker::explained_by(200), 260);
    // Claiming 0 ms of thought for a 2 s move: only what 200 ms explains.
    EXPECT_EQ(tracker.credit_for({2'000, 200, 0}), 260);
    // A report longer than the move took claims no lag at all.
    EXPECT_EQ(tracker.credit_for({500, 200, 900}), 0);
    // Negative values from a buggy peer count as 0.
    EXPECT_EQ(tracker.credit_for({500, -5, std::nullopt}), 0);
    EXPECT_EQ(tracker.credit_for({500, 200, -100}), 260);
}

TEST(LagTracker, TheQuotaBoundsEachCreditAndRefillsPerMove) {
    const LagQuota quota = LagQuota::for_clock(kBullet);  // 1 170, +390, max 2 730
    LagTracker tracker(quota);
    EXPECT_EQ(tracker.available_ms(), 1'170);
    // A round trip of 5 s (a client slowing its pongs) is bounded by what is available.
    EXPECT_EQ(tracker.credit_for({9'000, 5'000, 0}), 1'170);
    tracker = tracker.after(1'170, 5'000);
    EXPECT_EQ(tracker.available_ms(), 390);
    EXPECT_EQ(tracker.credit_for({9'000, 5'000, 0}), 390);
    // Unused, the quota grows by a refill a move up to its maximum, never beyond.
    for (int i = 0; i < 10; ++i) {
        tracker = tracker.after(0, std::nullopt);
    }
    EXPECT_EQ(tracker.available_ms(), quota.max_ms);
    tracker = tracker.after(0, std::nullopt);
    EXPECT_EQ(tracker.available_ms(), quota.max_ms);
    // A stored credit larger than what was available (a hand-edited row) drains it to 0, not
    // below; a negative one gives nothing back.
    EXPECT_EQ(tracker.after(99'999, std::nullopt).available_ms(), quota.refill_ms);
    EXPECT_EQ(tracker.after(-500, std::nullopt).available_ms(), quota.max_ms);
}

TEST(LagTracker, FlagGraceIsTheLastRoundTripWithinTheQuota) {
    LagTracker tracker(LagQuota::for_clock(kBullet));
    EXPECT_EQ(tracker.flag_grace_ms(), 0);  // nothing measured yet
    tracker = tracker.after(200, 200);
    EXPECT_EQ(tracker.flag_grace_ms(), 200);
    tracker = tracker.after(0, 9'000);
    EXPECT_EQ(tracker.flag_grace_ms(), tracker.available_ms());
    EXPECT_EQ(tracker.after(0, std::nullopt).flag_grace_ms(), 0);
}

// The targets, over a whole game of 60 timed moves by a seat.

TEST(LagCompensationTargets, SteadyRoundTripAndInstantRepliesChargeAtMost20MsAMove) {
    constexpr int kMoves = 60;
    for (const std::int64_t round_trip : {100, 200}) {
        for (const auto& spec : {kBullet, kBlitz}) {
            // Instant replies: the move took the round trip and 3 ms of server and client work.
            const std::int64_t elapsed = round_trip + 3;
            // Reporting no think time: the measured round trip is credited.
            const Totals silent = play(spec, kMoves, elapsed, round_trip, std::nullopt);
            EXPECT_LE(silent.charged_ms / kMoves, 20) << round_trip;
            // Reporting 1 ms of think time (its own event handling).
            const Totals reporting = play(spec, kMoves, elapsed, round_trip, 1);
            EXPECT_LE(reporting.charged_ms / kMoves, 20) << round_trip;
            // Before lag compensation: the whole round trip, every move.
            EXPECT_EQ(play(spec, kMoves, elapsed, std::nullopt, std::nullopt).charged_ms,
                      kMoves * elapsed);
        }
    }
}

TEST(LagCompensationTargets, NoDelayChangesNothing) {
    // No round trip measured, or one of 0 ms with nothing to explain: every ms is charged.
    for (const Ms round_trip : {Ms{}, Ms{0}}) {
        const Totals totals = play(kBullet, 60, 1'500, round_trip, 1'500);
        EXPECT_EQ(totals.credited_ms, 0);
        EXPECT_EQ(totals.charged_ms, 60 * 1'500);
    }
    EXPECT_EQ(play(kBullet, 60, 1'500, std::nullopt, std::nullopt).credited_ms, 0);
}

TEST(LagCompensationTargets, ALyingClientGainsAtMostItsQuota) {
    // Claims 0 ms of think time but waits 2 s a move.
    constexpr int kMoves = 60;
    const LagQuota quota = LagQuota::for_clock(kBullet);
    // On a fast link its lie is not explained: 10 ms a move at most.
    EXPECT_LE(play(kBullet, kMoves, 2'000, 0, 0).credited_ms, kMoves * 10);
    // 200 ms away it gets what an honest player 200 ms away gets, and 60 ms of jitter
    // allowance: at most 60 ms a move more than its true lag.
    const Totals far = play(kBullet, kMoves, 2'000, 200, 0);
    EXPECT_LE(far.credited_ms, kMoves * LagTracker::explained_by(200));
    // Slowing its pongs to make the server measure 5 s: the quota is all it gets, the initial
    // quota and a refill per move, never more than the maximum at once.
    for (const auto& spec : {kBullet, kBlitz}) {
        const LagQuota bound = LagQuota::for_clock(spec);
        LagTracker tracker(bound);
        std::int64_t credited = 0;
        for (int i = 0; i < kMoves; ++i) {
            const std::int64_t credit = tracker.credit_for({2'000, 5'000, 0});
            EXPECT_LE(credit, bound.max_ms);
            credited += credit;
            tracker = tracker.after(credit, 5'000);
        }
        EXPECT_LE(credited, bound.initial_ms + (kMoves - 1) * bound.refill_ms);
    }
    EXPECT_EQ(quota.refill_ms, 390);
}

}  // namespace
}  // namespace arbiter::server::app
