package mailchimp

// EmailActivityScope is the copy scope email_activity will have (see
// emailActivityScope), for the tests of its parts.
var EmailActivityScope = emailActivityScope
