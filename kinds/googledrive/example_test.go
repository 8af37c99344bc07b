package googledrive_test

import (
	"context"
	"fmt"
	"io"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// Typed handles decode records into this package's structs; files are
// found with Drive's q language, and a Google Doc is read by exporting
// it.
func Example() {
	srv := googledrivetest.New(googledrivetest.WithFiles(14))
	defer srv.Close()
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for f, err := range c.Files().All(ctx, googledrive.FileParams{Q: "mimeType = '" + googledrive.Document + "' and trashed = false"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f.Name, len(f.ExportLinks) > 0)
	}
	st, err := c.Download(ctx, "file_exports", tributary.Params{"fileId": googledrivetest.FileID(1), "mimeType": "text/csv"})
	fmt.Println(err)
	st, err = c.Download(ctx, "file_exports", tributary.Params{"fileId": googledrivetest.FileID(1), "mimeType": "text/plain"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	text, _ := io.ReadAll(st)
	fmt.Printf("%s: %q\n", st.ContentType, text)
	// Output:
	// document 1 true
	// document 8 true
	// tributary: google-drive file_exports.download: invalid params (HTTP 400 badRequest): The requested conversion is not supported.
	// text/plain: "\ufeffdocument 1\nversion 1\n"
}
