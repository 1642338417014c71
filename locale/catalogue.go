package locale

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// The catalogues: one TOML file per language, named by its BCP 47 tag,
// which a translator edits without reading Go (see messages/en.toml).
//
//go:embed messages/*.toml
var embedded embed.FS

// metaTable is the table of a catalogue that says which language it is,
// not a message.
const metaTable = "language"

// datePrefix begins the ids of the date patterns, which are CLDR
// patterns rather than messages.
const datePrefix = "date."

// pluralForms are the keys of a message's CLDR plural forms, in CLDR's
// order.
var pluralForms = []string{"zero", "one", "two", "few", "many", "other"}

// catalogue is one language's file, read.
type catalogue struct {
	file string
	tag  language.Tag
	// name is the language's name in itself ("Français"), english its
	// name in English ("French"): both list it among the languages on
	// offer.
	name, english string
	// same are the ids whose text reads as the English on purpose.
	same []string
	// messages are the texts by id, each by plural form ("other" for a
	// message that has no plural).
	messages map[string]map[string]string
}

func readCatalogue(fsys fs.FS, file string) (*catalogue, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	tag, err := tagOf(file)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, fmt.Errorf("locale: %s: %w", file, err)
	}
	c := &catalogue{file: file, tag: tag, messages: map[string]map[string]string{}}
	if err := c.readMeta(raw[metaTable]); err != nil {
		return nil, err
	}
	delete(raw, metaTable)
	if err := c.readMessages("", raw); err != nil {
		return nil, err
	}
	return c, nil
}

// tagOf is the language a catalogue's file names: messages/pt-BR.toml
// is pt-BR, and its name must be the tag as BCP 47 writes it.
func tagOf(file string) (language.Tag, error) {
	name := strings.TrimSuffix(path.Base(file), ".toml")
	tag, err := language.Parse(name)
	if err != nil || tag.String() != name {
		return language.Und, fmt.Errorf("locale: %s: the file's name is not a canonical BCP 47 tag (%s)", file, tag)
	}
	return tag, nil
}

// readMeta reads the table [language].
func (c *catalogue) readMeta(v any) error {
	meta, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("locale: %s: no [%s] table naming the language", c.file, metaTable)
	}
	c.name, _ = meta["name"].(string)
	c.english, _ = meta["english"].(string)
	if c.name == "" || c.english == "" {
		return fmt.Errorf("locale: %s: [%s] needs name and english", c.file, metaTable)
	}
	if same, ok := meta["same"].([]any); ok {
		for _, id := range same {
			s, ok := id.(string)
			if !ok {
				return fmt.Errorf("locale: %s: [%s] same lists ids, not %v", c.file, metaTable, id)
			}
			c.same = append(c.same, s)
		}
	}
	return nil
}

// readMessages reads the messages of a table, whose ids begin with
// prefix: a string is a message, a table of plural forms (one, other,
// ...) is a message with plurals, and any other table holds more
// messages ("count.feeds" is the table feeds in the table count).
func (c *catalogue) readMessages(prefix string, table map[string]any) error {
	for key, v := range table {
		id := prefix + key
		switch v := v.(type) {
		case string:
			c.messages[id] = map[string]string{"other": v}
		case map[string]any:
			if !isPlural(v) {
				if err := c.readMessages(id+".", v); err != nil {
					return err
				}
				continue
			}
			forms := map[string]string{}
			for form, text := range v {
				s, ok := text.(string)
				if !ok || !slices.Contains(pluralForms, form) {
					return fmt.Errorf("locale: %s: %s: %q is not a plural form (%s) with a text", c.file, id, form, strings.Join(pluralForms, ", "))
				}
				forms[form] = s
			}
			c.messages[id] = forms
		default:
			return fmt.Errorf("locale: %s: %s is neither a text nor a table", c.file, id)
		}
	}
	return nil
}

// isPlural says whether a table is a message's plural forms rather than
// a table of messages: it has the form every language has, other.
func isPlural(table map[string]any) bool {
	_, ok := table["other"].(string)
	return ok
}

// i18nMessages are c's messages for go-i18n's bundle, date patterns
// aside.
func (c *catalogue) i18nMessages() []*i18n.Message {
	var out []*i18n.Message
	for id, forms := range c.messages {
		if strings.HasPrefix(id, datePrefix) {
			continue
		}
		out = append(out, &i18n.Message{ID: id, Zero: forms["zero"], One: forms["one"], Two: forms["two"],
			Few: forms["few"], Many: forms["many"], Other: forms["other"]})
	}
	return out
}
