package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Latch terms numbered across holder processes by when each term began, not when it was reported. */
class LatchTermsTest {

  @Test
  void termsAreNumberedByTheirStartStampsAcrossHolders() {
    // h0's first start is reported last (its process was stopped before it printed).
    LatchTerms terms = LatchTerms.of(List.of(
        new Timeline.Event("h1", Timeline.Edge.START, 1, 100),
        new Timeline.Event("h1", Timeline.Edge.STOP, 1, 200),
        new Timeline.Event("h1", Timeline.Edge.START, 2, 300),
        new Timeline.Event("h0", Timeline.Edge.START, 1, 50)));

    assertThat(terms.term("h0", 1)).isEqualTo(1);
    assertThat(terms.term("h1", 1)).isEqualTo(2);
    assertThat(terms.term("h1", 2)).isEqualTo(3);
    assertThat(terms.apply(new History.Write("h1", 2, 7))).isEqualTo(new History.Write("h1", 3, 7));
    assertThat(terms.apply(new History.Interval("h0", 1, 50, 80)))
        .isEqualTo(new History.Interval("h0", 1, 50, 80));
  }

  @Test
  void aTermThatNeverStartedIsABug() {
    LatchTerms terms = LatchTerms.of(List.of());

    assertThatThrownBy(() -> terms.term("h0", 1)).hasMessageContaining("h0 reported term 1");
  }
}
