package io.amlease.bench;

import java.util.List;

/**
 * One partition trial of one contender, for the timeline picture: acting edges relative to the
 * moment the partition began.
 *
 * @param faultNanos when the partition began
 * @param healNanos when it healed
 * @param endNanos when observation ended
 */
record Trace(Contender contender, long faultNanos, long healNanos, long endNanos,
    List<Timeline.Event> events) {}
