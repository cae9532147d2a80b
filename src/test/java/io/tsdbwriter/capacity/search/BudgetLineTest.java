package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The search's time budget, printed at its start (issue 55). */
class BudgetLineTest {

    @Test
    void theBudgetIsPrintedWithHowToLiftIt() {
        assertThat(CapacitySearch.budgetLine(Duration.ofMinutes(8)))
                .isEqualTo("time budget 480s: no step starts that would end after it (--time-budget 0 lifts it)");
        assertThat(CapacitySearch.budgetLine(Duration.ZERO)).isEqualTo("time budget: none (--time-budget 0)");
    }
}
