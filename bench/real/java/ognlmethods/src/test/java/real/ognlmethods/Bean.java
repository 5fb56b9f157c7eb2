package real.ognlmethods;

/** An application bean with many methods, as the beans OGNL evaluates expressions on. */
public class Bean {
    public int m0() { return 0; }
    public int m1() { return 1; }
    public int m2() { return 2; }
    public int m3() { return 3; }
    public int m4() { return 4; }
    public int m5() { return 5; }
    public int m6() { return 6; }
    public int m7() { return 7; }
    public int m8() { return 8; }
    public int m9() { return 9; }
    public int m10() { return 10; }
    public int m11() { return 11; }
    public int m12() { return 12; }
    public int m13() { return 13; }
    public int m14() { return 14; }
    public int m15() { return 15; }
    public int m16() { return 16; }
    public int m17() { return 17; }
    public int m18() { return 18; }
    public int m19() { return 19; }
    public int m20() { return 20; }
    public int m21() { return 21; }
    public int m22() { return 22; }
    public int m23() { return 23; }
    public int m24() { return 24; }
    public int m25() { return 25; }
    public int m26() { return 26; }
    public int m27() { return 27; }
    public int m28() { return 28; }
    public int m29() { return 29; }
    public int m30() { return 30; }
    public int m31() { return 31; }
    public int m32() { return 32; }
    public int m33() { return 33; }
    public int m34() { return 34; }
    public int m35() { return 35; }
    public int m36() { return 36; }
    public int m37() { return 37; }
    public int m38() { return 38; }
    public int m39() { return 39; }
    public int m40() { return 40; }
    public int m41() { return 41; }
    public int m42() { return 42; }
    public int m43() { return 43; }
    public int m44() { return 44; }
    public int m45() { return 45; }
    public int m46() { return 46; }
    public int m47() { return 47; }
    public int m48() { return 48; }
    public int m49() { return 49; }
    public int m50() { return 50; }
    public int m51() { return 51; }
    public int m52() { return 52; }
    public int m53() { return 53; }
    public int m54() { return 54; }
    public int m55() { return 55; }
    public int m56() { return 56; }
    public int m57() { return 57; }
    public int m58() { return 58; }
    public int m59() { return 59; }

  public String describe() {
    return getClass().getSimpleName();
  }

  public static class Order extends Bean { }

  public static class Customer extends Bean { }

  public static class Invoice extends Bean { }

  public static class Shipment extends Bean { }
}
