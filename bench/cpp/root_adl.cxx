// The eight ADL benchmark queries with ROOT's RDataFrame and compiled column types (the
// fast way to use RDataFrame from C++), computed as bench/adl.py's expressions compute them.
//
//   root_adl OUT.json THREADS BTAG QUERY FILE...     (QUERY: all, or q1 ... q8)
//
// Writes {"seconds": s, "q1": {"bins": [...], "under": u, "over": o, "entries": n}, ...}.

#include <ROOT/RDataFrame.hxx>
#include <ROOT/RVec.hxx>
#include <Math/Vector4D.h>
#include <TH1D.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using ROOT::RVecF;
using ROOT::RVecI;
using ROOT::VecOps::RVec;
using P4 = ROOT::Math::PtEtaPhiMVector;

static double pair_mass(const RVecF& pt, const RVecF& eta, const RVecF& phi, const RVecF& m, std::size_t i,
                        std::size_t j) {
    return (P4(pt[i], eta[i], phi[i], m[i]) + P4(pt[j], eta[j], phi[j], m[j])).M();
}

static bool near(float eta, float phi, const RVecF& leta, const RVecF& lphi, const RVecF& lpt) {
    for (std::size_t l = 0; l < leta.size(); ++l)
        if (lpt[l] > 10 && ROOT::VecOps::DeltaR(eta, leta[l], phi, lphi[l]) < 0.4f) return true;
    return false;
}

int main(int argc, char** argv) {
    if (argc < 6) {
        std::cerr << "usage: root_adl OUT.json THREADS BTAG QUERY FILE...\n";
        return 2;
    }
    std::string out = argv[1];
    int threads = std::stoi(argv[2]);
    std::string btag = argv[3], only = argv[4];
    std::vector<std::string> files(argv + 5, argv + argc);
    if (threads > 1) ROOT::EnableImplicitMT(threads);
    auto start = std::chrono::steady_clock::now();
    ROOT::RDataFrame df("Events", files);
    std::map<std::string, ROOT::RDF::RResultPtr<TH1D>> h;
    auto want = [&](const char* q) { return only == "all" || only == q || (only == "q6" && std::string(q).rfind("q6", 0) == 0); };
    if (want("q1")) h["q1"] = df.Histo1D<float>({"q1", "", 100, 0, 200}, "MET_pt");
    if (want("q2")) h["q2"] = df.Histo1D<RVecF>({"q2", "", 100, 15, 60}, "Jet_pt");
    if (want("q3"))
        h["q3"] = df.Define("q3_pt", [](const RVecF& pt, const RVecF& eta) { return RVecF(pt[abs(eta) < 1]); },
                            {"Jet_pt", "Jet_eta"})
                      .Histo1D<RVecF>({"q3", "", 100, 15, 60}, "q3_pt");
    if (want("q4"))
        h["q4"] = df.Filter([](const RVecF& pt) { return Sum(pt > 40) >= 2; }, {"Jet_pt"})
                      .Histo1D<float>({"q4", "", 100, 0, 200}, "MET_pt");
    if (want("q5")) {
        auto os_z = [](const RVecF& pt, const RVecF& eta, const RVecF& phi, const RVecF& m, const RVecI& q) {
            for (std::size_t i = 0; i < pt.size(); ++i)
                for (std::size_t j = i + 1; j < pt.size(); ++j) {
                    double mass = pair_mass(pt, eta, phi, m, i, j);
                    if (q[i] != q[j] && mass > 60 && mass < 120) return true;
                }
            return false;
        };
        h["q5"] = df.Filter(os_z, {"Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge"})
                      .Histo1D<float>({"q5", "", 100, 0, 200}, "MET_pt");
    }
    if (want("q6a") || want("q6b")) {
        auto best = [](const RVecF& pt, const RVecF& eta, const RVecF& phi, const RVecF& m, const RVecF& b) {
            std::size_t n = pt.size();
            double closest = 0, best_pt = 0;
            float best_btag = 0;
            bool first = true;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = i + 1; j < n; ++j)
                    for (std::size_t k = j + 1; k < n; ++k) {
                        P4 t = P4(pt[i], eta[i], phi[i], m[i]) + P4(pt[j], eta[j], phi[j], m[j]) +
                               P4(pt[k], eta[k], phi[k], m[k]);
                        double d = std::abs(t.M() - 172.5);
                        if (first || d < closest) {
                            first = false;
                            closest = d;
                            best_pt = t.Pt();
                            best_btag = std::max(std::max(b[i], b[j]), b[k]);
                        }
                    }
            return std::make_pair(best_pt, best_btag);
        };
        auto q6 = df.Filter([](const RVecF& pt) { return pt.size() >= 3; }, {"Jet_pt"})
                      .Define("q6_best", best, {"Jet_pt", "Jet_eta", "Jet_phi", "Jet_mass", btag})
                      .Define("q6_pt", [](const std::pair<double, float>& p) { return p.first; }, {"q6_best"})
                      .Define("q6_btag", [](const std::pair<double, float>& p) { return p.second; }, {"q6_best"});
        h["q6a"] = q6.Histo1D<double>({"q6a", "", 100, 15, 40}, "q6_pt");
        h["q6b"] = q6.Histo1D<float>({"q6b", "", 100, 0, 1}, "q6_btag");
    }
    if (want("q7")) {
        auto ht = [](const RVecF& pt, const RVecF& eta, const RVecF& phi, const RVecF& meta, const RVecF& mphi,
                     const RVecF& mpt, const RVecF& eeta, const RVecF& ephi, const RVecF& ept) {
            float sum = 0;
            for (std::size_t j = 0; j < pt.size(); ++j)
                if (pt[j] > 30 && !(near(eta[j], phi[j], meta, mphi, mpt) || near(eta[j], phi[j], eeta, ephi, ept)))
                    sum += pt[j];
            return sum;
        };
        h["q7"] = df.Define("q7_ht", ht,
                            {"Jet_pt", "Jet_eta", "Jet_phi", "Muon_eta", "Muon_phi", "Muon_pt", "Electron_eta",
                             "Electron_phi", "Electron_pt"})
                      .Histo1D<float>({"q7", "", 100, 15, 200}, "q7_ht");
    }
    if (want("q8")) {
        auto mt = [](const RVecF& ept, const RVecF& eeta, const RVecF& ephi, const RVecF& em, const RVecI& eq,
                     const RVecF& mpt, const RVecF& meta, const RVecF& mphi, const RVecF& mm, const RVecI& mq,
                     float met, float met_phi) {
            auto pt = Concatenate(ept, mpt), eta = Concatenate(eeta, meta), phi = Concatenate(ephi, mphi),
                 m = Concatenate(em, mm);
            auto q = Concatenate(eq, mq);
            RVecI flavour = Concatenate(RVecI(ept.size(), 0), RVecI(mpt.size(), 1));
            if (pt.size() < 3) return -1.0;
            bool found = false;
            double closest = 0;
            std::size_t i1 = 0, i2 = 0;
            for (std::size_t i = 0; i < pt.size(); ++i)
                for (std::size_t j = i + 1; j < pt.size(); ++j) {
                    if (flavour[i] != flavour[j] || q[i] == q[j]) continue;
                    double d = std::abs(pair_mass(pt, eta, phi, m, i, j) - 91.2);
                    if (!found || d < closest) {
                        found = true;
                        closest = d;
                        i1 = i;
                        i2 = j;
                    }
                }
            if (!found) return -1.0;
            std::size_t lead = 0;
            float best = 0;
            bool any = false;
            for (std::size_t k = 0; k < pt.size(); ++k) {
                float v = (k != i1 && k != i2) ? pt[k] : -1.f;
                if (!any || best < v) {
                    any = true;
                    best = v;
                    lead = k;
                }
            }
            return std::sqrt(2.0 * pt[lead] * met * (1.0 - std::cos(ROOT::VecOps::DeltaPhi(phi[lead], met_phi))));
        };
        h["q8"] = df.Define("q8_mt", mt,
                            {"Electron_pt", "Electron_eta", "Electron_phi", "Electron_mass", "Electron_charge",
                             "Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge", "MET_pt", "MET_phi"})
                      .Filter([](double v) { return v >= 0; }, {"q8_mt"})
                      .Histo1D<double>({"q8", "", 100, 0, 200}, "q8_mt");
    }
    std::ofstream o(out);
    bool first = true;
    std::string body;
    for (auto& [name, r] : h) {
        TH1D& t = *r;
        std::string bins;
        for (int i = 1; i <= t.GetNbinsX(); ++i) bins += (i > 1 ? "," : "") + std::to_string(t.GetBinContent(i));
        body += std::string(first ? "" : ",") + "\"" + name + "\": {\"bins\": [" + bins + "], \"under\": " +
                std::to_string(t.GetBinContent(0)) + ", \"over\": " + std::to_string(t.GetBinContent(t.GetNbinsX() + 1)) +
                ", \"entries\": " + std::to_string(t.GetEntries()) + "}";
        first = false;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o << "{\"seconds\": " << seconds << (body.empty() ? "" : ", ") << body << "}\n";
    return 0;
}
