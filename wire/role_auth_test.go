package wire

import (
	"testing"
	"time"
)

// The login throttle: free attempts first, then a delay doubling per
// failure up to its cap, per peer and user; a success or a quiet window
// clears it.
func TestLoginThrottle(t *testing.T) {
	a := &RoleAuth{}
	a.init()
	now := time.Now()
	key := throttleKey{host: "10.0.0.1", user: "alice"}
	other := throttleKey{host: "10.0.0.2", user: "alice"}
	var got []time.Duration
	for i := 0; i < 10; i++ {
		got = append(got, a.delay(key, now))
		a.record(key, false, now)
	}
	want := []time.Duration{0, 0, 0, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, throttleMaxDelay}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("attempt %d: delay %v, want %v", i+1, got[i], want[i])
		}
	}
	if d := a.delay(other, now); d != 0 {
		t.Errorf("another peer is delayed %v", d)
	}
	if d := a.delay(key, now.Add(throttleWindow+time.Second)); d != 0 {
		t.Errorf("after a quiet window: delay %v", d)
	}
	a.record(key, true, now)
	if d := a.delay(key, now); d != 0 {
		t.Errorf("after a success: delay %v", d)
	}
}
