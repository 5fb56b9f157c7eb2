package real.spring_addconverter;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Currency;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import org.springframework.core.convert.support.GenericConversionService;

/**
 * spring-projects/spring-framework #26183, spring-core 5.2.11.RELEASE: applications starting in
 * parallel register their converters in one shared conversion service (in the report, Spring
 * Security's RsaKeyConversionServicePostProcessor calls addConverter during each context's start).
 * Two starter threads each add converters for their own source/target pairs at the same time;
 * intermittently an addConverter call fails with ConcurrentModificationException (thrown by the
 * map's computeIfAbsent on Java 9+), or a registered converter is missing afterwards.
 */
public class ParallelAddConverterTest {

    /** Unrelated source types: none is a supertype of another, none is assignable to a target. */
    static final Class<?>[] SOURCES = {
        Integer.class, Long.class, Short.class, Byte.class, Double.class, Float.class, Character.class,
        Boolean.class, BigDecimal.class, BigInteger.class, UUID.class, Locale.class, Currency.class,
        LocalDate.class, LocalTime.class, LocalDateTime.class, Instant.class, Duration.class,
        Period.class, Year.class, YearMonth.class, MonthDay.class, ZoneOffset.class,
        OffsetDateTime.class, ZonedDateTime.class, URI.class,
    };

    /** One target type per starter thread. */
    static final Class<?>[] TARGETS = { StringBuilder.class, StringBuffer.class };

    static final int ROUNDS = 3;

    @Test
    public void convertersAddedFromParallelStartsAreAllRegistered() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            startInParallel(round);
        }
    }

    @SuppressWarnings({ "unchecked", "rawtypes" })
    private void startInParallel(int round) throws Exception {
        GenericConversionService shared = new GenericConversionService();
        CountDownLatch start = new CountDownLatch(1);
        Throwable[] failure = new Throwable[TARGETS.length];
        Thread[] starters = new Thread[TARGETS.length];
        for (int t = 0; t < starters.length; t++) {
            Class target = TARGETS[t];
            int k = t;
            starters[t] = new Thread(() -> {
                try {
                    start.await();
                    for (Class source : SOURCES) {
                        shared.addConverter(source, target, (Object s) -> new StringBuilder(String.valueOf(s)));
                    }
                } catch (Throwable e) {
                    failure[k] = e;
                }
            }, "app-start-" + t);
            starters[t].start();
        }
        start.countDown();
        for (Thread t : starters) {
            t.join();
        }
        for (int t = 0; t < failure.length; t++) {
            if (failure[t] != null) {
                failure[t].printStackTrace();
            }
            assertNull(failure[t], "round " + round + ": addConverter failed in app-start-" + t + ": " + failure[t]);
        }
        for (Class<?> target : TARGETS) {
            for (Class<?> source : SOURCES) {
                assertTrue(shared.canConvert(source, target),
                        "round " + round + ": the converter " + source.getSimpleName() + " -> "
                                + target.getSimpleName() + " was added but is not registered");
            }
        }
    }
}
