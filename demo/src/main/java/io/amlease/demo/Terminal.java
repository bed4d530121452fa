package io.amlease.demo;

import java.util.EnumSet;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;

/** YARN application states after which nothing runs any more. */
final class Terminal {
  private static final EnumSet<YarnApplicationState> STATES = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private Terminal() {}

  static boolean is(YarnApplicationState s) {
    return STATES.contains(s);
  }
}
