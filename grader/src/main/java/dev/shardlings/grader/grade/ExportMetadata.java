package dev.shardlings.grader.grade;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Who submitted each folder of an export, as the platform recorded it, for the gradebook's identifier columns:
 * <ul>
 *   <li>Gradescope's "Export Submissions" has {@code submission_metadata.yml} beside the folders: per folder
 *       ({@code submission_123}) a {@code :submitters:} list, each with {@code :name:}, {@code :sid:} and
 *       {@code :email:} (several for a group submission: each gets a row of the gradebook);</li>
 *   <li>GitHub Classroom's "Download grades" CSV, put beside the cloned repositories: per
 *       {@code student_repository_name} (the folder {@code gh classroom clone} makes) the {@code github_username}
 *       and {@code roster_identifier}.</li>
 * </ul>
 * A folder the metadata does not name gets empty identifier columns; an export with neither file, none.
 *
 * @param columns  the identifier columns, in gradebook order
 * @param byFolder per student folder, one row of identifier values per submitter
 */
record ExportMetadata(List<String> columns, Map<String, List<Map<String, String>>> byFolder) {

    /** Gradescope's metadata file, at the top of its export. */
    static final String GRADESCOPE = "submission_metadata.yml";
    static final List<String> GRADESCOPE_COLUMNS = List.of("name", "sid", "email");
    static final List<String> CLASSROOM_COLUMNS = List.of("github_username", "roster_identifier");
    private static final String REPOSITORY = "student_repository_name";

    ExportMetadata {
        columns = List.copyOf(columns);
        byFolder = Collections.unmodifiableMap(new LinkedHashMap<>(byFolder));
    }

    /** No metadata: the folder name is the only identifier. */
    static final ExportMetadata NONE = new ExportMetadata(List.of(), Map.of());

    /** The submitters of {@code folder}: one row of identifier values each (one empty row when unknown). */
    List<Map<String, String>> submitters(String folder) {
        return byFolder.getOrDefault(folder, List.of(Map.of()));
    }

    /**
     * The metadata of the export in {@code submissions}: Gradescope's when its file is there, else a Classroom
     * grades CSV's, else {@link #NONE}.
     *
     * @throws IOException when a metadata file is there but cannot be read (the gradebook would lose its ids)
     */
    static ExportMetadata read(Path submissions) throws IOException {
        Path yml = submissions.resolve(GRADESCOPE);
        if (Files.isRegularFile(yml)) {
            return gradescope(yml);
        }
        try (Stream<Path> files = Files.list(submissions)) {
            for (Path csv : files.filter(f -> f.getFileName().toString().endsWith(".csv") && Files.isRegularFile(f))
                    .sorted().toList()) {
                ExportMetadata m = classroom(csv);
                if (m != null) {
                    return m;
                }
            }
        }
        return NONE;
    }

    static ExportMetadata gradescope(Path yml) throws IOException {
        // Keys are Ruby symbols (":submitters"); Jackson reads YAML tags such as !ruby/object as plain values.
        // SnakeYAML stops at 3 M code points by default; a large class's export is bigger than that.
        org.yaml.snakeyaml.LoaderOptions loader = new org.yaml.snakeyaml.LoaderOptions();
        loader.setCodePointLimit(Integer.MAX_VALUE);
        JsonNode root = new YAMLMapper(com.fasterxml.jackson.dataformat.yaml.YAMLFactory.builder()
                .loaderOptions(loader).build()).readTree(yml.toFile());
        Map<String, List<Map<String, String>>> by = new LinkedHashMap<>();
        if (root != null) {
            root.fields().forEachRemaining(e -> {
                List<Map<String, String>> rows = new ArrayList<>();
                for (JsonNode s : e.getValue().path(":submitters")) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (String c : GRADESCOPE_COLUMNS) {
                        row.put(c, s.path(":" + c).asText(""));
                    }
                    rows.add(Collections.unmodifiableMap(row));
                }
                if (!rows.isEmpty()) {
                    by.put(e.getKey(), List.copyOf(rows));
                }
            });
        }
        return new ExportMetadata(GRADESCOPE_COLUMNS, by);
    }

    /**
     * A Classroom grades CSV's identifiers, or null when {@code csv} is not one (no repository column, or not a CSV
     * Jackson can read: any other spreadsheet an instructor left in the export must not stop the batch). Every row
     * of a repository is kept (a group repository names each member).
     */
    static ExportMetadata classroom(Path csv) throws IOException {
        Map<String, List<Map<String, String>>> by = new LinkedHashMap<>();
        try {
            return classroomRows(csv, by) ? new ExportMetadata(CLASSROOM_COLUMNS, by) : null;
        } catch (com.fasterxml.jackson.core.JacksonException | RuntimeException e) {
            System.err.println("Not read as a Classroom grades CSV: " + SubmissionGrading.printable(csv.getFileName()
                    .toString()) + " (" + SubmissionGrading.printable(String.valueOf(e.getMessage()).lines()
                    .findFirst().orElse("")) + ")");
            return null;
        }
    }

    private static boolean classroomRows(Path csv, Map<String, List<Map<String, String>>> by) throws IOException {
        try (MappingIterator<Map<String, String>> rows = new CsvMapper().readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader()).readValues(csv.toFile())) {
            while (rows.hasNextValue()) {
                Map<String, String> r = rows.nextValue();
                if (!r.containsKey(REPOSITORY) || !r.containsKey(CLASSROOM_COLUMNS.get(0))) {
                    return false;
                }
                Map<String, String> row = new LinkedHashMap<>();
                for (String c : CLASSROOM_COLUMNS) {
                    row.put(c, r.getOrDefault(c, ""));
                }
                by.computeIfAbsent(r.get(REPOSITORY), k -> new ArrayList<>()).add(Collections.unmodifiableMap(row));
            }
        }
        by.replaceAll((k, v) -> List.copyOf(v));
        return !by.isEmpty();
    }
}
