package dev.shardlings;

/**
 * Thrown by an exercise stub that the student has not filled in yet. The grader recognises it and reports the
 * part as "to do" with a pointer to where to start, instead of as a crash.
 *
 * <p>A stub is one line: {@code throw new ExerciseNotDone("1.1a");}. Replace that line with your code.
 */
public final class ExerciseNotDone extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String part;

    /**
     * @param part the part number, e.g. {@code "1.1a"}
     * @throws IllegalArgumentException if part is null or blank
     */
    public ExerciseNotDone(String part) {
        super(message(part));
        this.part = part;
    }

    private static String message(String part) {
        if (part == null || part.isBlank()) {
            throw new IllegalArgumentException("ExerciseNotDone needs the part number, e.g. \"1.1a\"");
        }
        return "Part " + part + " has no implementation yet: replace the line 'throw new ExerciseNotDone(\"" + part
                + "\")' in exercises/ with your code.";
    }

    /** The part number, e.g. {@code "1.1a"}. */
    public String part() {
        return part;
    }
}
