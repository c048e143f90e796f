package dev.shardlings.grader.judge;

/**
 * A graded check that did not pass. {@link #reason()} is the one line for the score table; the message is the
 * whole teaching report (the case, expected and actual values with device and index, the sharding picture and a
 * hint).
 */
public final class GradingFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    /** Why a part failed, coarsely: what kind of problem it is. */
    public enum Kind {
        /** The stub still throws ExerciseNotDone. */
        NOT_DONE,
        /** The code threw an exception. */
        EXCEPTION,
        /** The code ran longer than the time limit. */
        TIMEOUT,
        /** Wrong output shape or dtype. */
        WRONG_SHAPE,
        /** Output laid out with another sharding than the task asks for. */
        WRONG_SHARDING,
        /** Wrong values. */
        WRONG_VALUES,
        /** Right values, but a structural rule from the trace was broken (communication, materialisation). */
        STRUCTURE,
        /** Right values and structure, but the modelled time is too far above the reference solution's. */
        PERFORMANCE
    }

    private final Kind kind;
    private final String reason;

    public GradingFailure(Kind kind, String reason, String report, Throwable cause) {
        super(report, cause);
        this.kind = kind;
        this.reason = reason;
    }

    /** What kind of failure. */
    public Kind kind() {
        return kind;
    }

    /** One line for the score table. */
    public String reason() {
        return reason;
    }
}
